import type { FastifyInstance } from 'fastify'
import { type Config, loadConfig } from './config.js'
import { buildApp } from './http/app.js'
import { createServices, type Services } from './services.js'

export interface RunningServer {
  readonly app: FastifyInstance
  readonly services: Services
  readonly url: string
  close(): Promise<void>
}

/** Starts the API server on the configured address; closes cleanly on close(). */
export async function startServer(
  config: Config = loadConfig(),
  options: { logger?: boolean } = {},
): Promise<RunningServer> {
  const services = await createServices(config)
  const app = await buildApp(services, options)
  const address = await app.listen({ host: config.host, port: config.port })
  return {
    app,
    services,
    url: address,
    async close() {
      await app.close()
      await services.close()
    },
  }
}

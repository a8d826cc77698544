import type { Config } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { createServices } from '../../src/services.js'
import { testConfig } from './config.js'
import { freePort } from './server-process.js'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js'

export interface ApiAnswer<T> {
  readonly status: number
  readonly text: string
  readonly body: T
}

export interface NativeServer {
  /** Unigate's public address: providers call it back there. */
  readonly base: string
  readonly receiver: WebhookReceiver
  api<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>
  close(): Promise<void>
}

/**
 * Unigate listening on a port known before it starts (a provider must reach it at its public address),
 * one workspace with an API key, and a receiver verifying the workspace's signed deliveries.
 */
export async function startNativeServer(
  workspace: string,
  webhooks: Partial<Config['webhooks']> = {},
): Promise<NativeServer> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const config = testConfig('sqlite', { publicUrl: base })
  const services = await createServices({ ...config, webhooks: { ...config.webhooks, ...webhooks } })
  const app = await buildApp(services, { logger: false })
  await app.listen({ host: '127.0.0.1', port })
  const { workspace: ws, secret } = await services.workspaces.create(workspace)
  const apiKey = (await services.apiKeys.issue(ws.id)).apiKey
  const receiver = await startWebhookReceiver(secret)
  return {
    base,
    receiver,
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await res.text()
      return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T }
    },
    async close() {
      await app.close()
      await services.close()
      await receiver.close()
    },
  }
}

/**
 * One Unigate server process for the multi-process refresh test: configuration from the environment,
 * the shared PostgreSQL schema, and "ready <url>" on stdout once it listens.
 */
import { buildApp } from '../../src/http/app.js'
import { createServices } from '../../src/services.js'
import { testConfig } from './config.js'

const port = Number(process.env.AUTH_TEST_PORT)
const config = testConfig('postgres', {
  port,
  publicUrl: `http://127.0.0.1:${port}`,
  masterKey: Buffer.from(process.env.AUTH_TEST_MASTER_KEY ?? '', 'base64'),
  databaseUrl: process.env.TEST_DATABASE_URL,
})
const services = await createServices(config, {
  pgSchema: process.env.AUTH_TEST_SCHEMA ?? '',
  background: false,
})
const app = await buildApp(services, { logger: false })
await app.listen({ host: '127.0.0.1', port })
process.stdout.write(`ready http://127.0.0.1:${port}\n`)
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => services.close())
    .then(() => process.exit(0))
})

import { loadConfig } from './config.js'
import { startServer } from './server.js'

const server = await startServer(loadConfig())
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.app.log.info({ signal }, 'shutting down')
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}

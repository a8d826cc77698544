import { loadConfig } from './config.js'
import { startServer } from './server.js'

const server = await startServer(loadConfig())
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal is the operator insisting: exit now; leases held expire after UNIGATE_WEBHOOK_LEASE_MS.
    if (stopping) {
      server.app.log.warn({ signal }, 'stopping at once, without waiting for running work')
      process.exit(1)
    }
    stopping = true
    server.app.log.info({ signal }, 'shutting down')
    // Waits (bounded by UNIGATE_WEBHOOK_STOP_TIMEOUT_MS) for running polls and deliveries, then closes.
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        server.app.log.error({ err }, 'shutting down failed')
        process.exit(1)
      },
    )
  })
}

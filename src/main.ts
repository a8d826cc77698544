import { loadConfig } from './config.js'
import { startServer } from './server.js'

const server = await startServer(loadConfig())
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Wrappers and service managers may deliver the same stop twice (npm forwards what a process group
    // already got); the stop is bounded, so a repeat is ignored rather than cutting it short.
    if (stopping) return
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

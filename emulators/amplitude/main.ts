import { parseArgs } from 'node:util'
import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from './index.js'

/** `tsx emulators/amplitude/main.ts --port 8009 --seed 1 --events 100000`: an Amplitude emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8009' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    users: { type: 'string' },
    events: { type: 'string' },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startAmplitudeEmulator({
  port: int('port', values.port) ?? 8009,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  users: int('users', values.users),
  events: int('events', values.events),
})

console.log(emulator.url)
console.error(
  `Amplitude emulator at ${emulator.url} (analytics and ingestion paths): api_key ${DEFAULT_API_KEY}, ` +
    `secret_key ${DEFAULT_SECRET_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

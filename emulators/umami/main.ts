import { parseArgs } from 'node:util'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator } from './index.js'

/** `tsx emulators/umami/main.ts --port 8007 --seed 1 --sessions 5000`: an Umami emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8007' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    websites: { type: 'string' },
    sessions: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startUmamiEmulator({
  port: int('port', values.port) ?? 8007,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  websites: int('websites', values.websites),
  sessions: int('sessions', values.sessions),
  apiKeys: values['api-key'] ?? [DEFAULT_UMAMI_API_KEY],
})

console.log(emulator.url)
console.error(
  `Umami emulator: Cloud API ${emulator.url}/v1 (x-umami-api-key), self-hosted ${emulator.url}/api (Bearer), ` +
    `key ${values['api-key']?.join(', ') ?? DEFAULT_UMAMI_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

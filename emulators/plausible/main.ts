import { parseArgs } from 'node:util'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from './index.js'

/** `tsx emulators/plausible/main.ts --port 8005 --sites 500 --visits 10000`: a Plausible emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8005' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    sites: { type: 'string' },
    visits: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startPlausibleEmulator({
  port: int('port', values.port) ?? 8005,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  sites: int('sites', values.sites),
  visits: int('visits', values.visits),
  apiKeys: values['api-key'] ?? [DEFAULT_PLAUSIBLE_API_KEY],
})

console.log(emulator.url)
console.error(
  `Plausible emulator: Bearer ${values['api-key']?.join(', ') ?? DEFAULT_PLAUSIBLE_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

import { parseArgs } from 'node:util'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from './index.js'

/** `tsx emulators/fathom/main.ts --port 8009 --sites 500 --pageviews 10000`: a Fathom emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8009' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    sites: { type: 'string' },
    pageviews: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startFathomEmulator({
  port: int('port', values.port) ?? 8009,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  sites: int('sites', values.sites),
  pageviews: int('pageviews', values.pageviews),
  apiKeys: values['api-key'] ?? [DEFAULT_FATHOM_API_KEY],
})

console.log(emulator.url)
console.error(
  `Fathom emulator: API at ${emulator.url}/v1, Bearer ${values['api-key']?.join(', ') ?? DEFAULT_FATHOM_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

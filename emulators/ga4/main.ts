import { parseArgs } from 'node:util'
import { startGa4Emulator } from './index.js'

/** `tsx emulators/ga4/main.ts --port 8004 --seed 1`: a GA4 emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8004' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    accounts: { type: 'string' },
    'properties-per-account': { type: 'string' },
    'facts-per-day': { type: 'string' },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startGa4Emulator({
  port: int('port', values.port) ?? 8004,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  accounts: int('accounts', values.accounts),
  propertiesPerAccount: int('properties-per-account', values['properties-per-account']),
  factsPerDay: int('facts-per-day', values['facts-per-day']),
})

const tokens = emulator.authority.issueTokens({
  scopes: [
    'https://www.googleapis.com/auth/analytics.edit',
    'https://www.googleapis.com/auth/analytics.readonly',
  ],
})
const stream = emulator.seed.streams[0]
console.log(emulator.url)
console.error(
  `GA4 emulator: access token ${tokens.access_token} (refresh ${tokens.refresh_token}); ` +
    `measurement id ${stream?.measurementId}, api secret ${stream?.apiSecret}; ` +
    `control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
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

const emulator = await startGa4Emulator({
  port: wholeNumberArg('port', values.port) ?? 8004,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  accounts: wholeNumberArg('accounts', values.accounts),
  propertiesPerAccount: wholeNumberArg('properties-per-account', values['properties-per-account']),
  factsPerDay: wholeNumberArg('facts-per-day', values['facts-per-day']),
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

closeOnSignals(emulator)

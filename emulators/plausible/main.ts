import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
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

const emulator = await startPlausibleEmulator({
  port: wholeNumberArg('port', values.port) ?? 8005,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  sites: wholeNumberArg('sites', values.sites),
  visits: wholeNumberArg('visits', values.visits),
  apiKeys: values['api-key'] ?? [DEFAULT_PLAUSIBLE_API_KEY],
})

console.log(emulator.url)
console.error(
  `Plausible emulator: Bearer ${values['api-key']?.join(', ') ?? DEFAULT_PLAUSIBLE_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

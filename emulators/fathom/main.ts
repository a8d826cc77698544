import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
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

const emulator = await startFathomEmulator({
  port: wholeNumberArg('port', values.port) ?? 8009,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  sites: wholeNumberArg('sites', values.sites),
  pageviews: wholeNumberArg('pageviews', values.pageviews),
  apiKeys: values['api-key'] ?? [DEFAULT_FATHOM_API_KEY],
})

console.log(emulator.url)
console.error(
  `Fathom emulator: API at ${emulator.url}/v1, Bearer ${values['api-key']?.join(', ') ?? DEFAULT_FATHOM_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

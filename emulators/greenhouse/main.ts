import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_GREENHOUSE_API_KEY, startGreenhouseEmulator } from './index.js'

/** `tsx emulators/greenhouse/main.ts --port 8013 --candidates 5000`: a Greenhouse Harvest emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8013' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    candidates: { type: 'string' },
    'rate-limit': { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

const emulator = await startGreenhouseEmulator({
  port: wholeNumberArg('port', values.port) ?? 8013,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  candidates: wholeNumberArg('candidates', values.candidates),
  rateLimit: wholeNumberArg('rate-limit', values['rate-limit']),
  apiKeys: values['api-key'] ?? [DEFAULT_GREENHOUSE_API_KEY],
})

console.log(emulator.url)
console.error(
  `Greenhouse emulator: Harvest API at ${emulator.url}/v1, Basic auth with username ${values['api-key']?.join(', ') ?? DEFAULT_GREENHOUSE_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

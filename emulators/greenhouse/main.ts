import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  startGreenhouseEmulator,
} from './index.js'

/** `tsx emulators/greenhouse/main.ts --port 8013 --candidates 5000`: a Greenhouse Harvest emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8013' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    candidates: { type: 'string' },
    'rate-limit': { type: 'string' },
  },
})

const emulator = await startGreenhouseEmulator({
  port: wholeNumberArg('port', values.port) ?? 8013,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  candidates: wholeNumberArg('candidates', values.candidates),
  rateLimit: wholeNumberArg('rate-limit', values['rate-limit']),
})

console.log(emulator.url)
console.error(
  `Greenhouse emulator: Harvest v3 at ${emulator.url}/v3, tokens at ${emulator.url}/token for client ${DEFAULT_GREENHOUSE_CLIENT_ID} / ${DEFAULT_GREENHOUSE_CLIENT_SECRET}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_LEVER_API_KEY, startLeverEmulator } from './index.js'

/** `tsx emulators/lever/main.ts --port 8014 --contacts 5000`: a Lever API emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8014' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    contacts: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

const emulator = await startLeverEmulator({
  port: wholeNumberArg('port', values.port) ?? 8014,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  contacts: wholeNumberArg('contacts', values.contacts),
  apiKeys: values['api-key'] ?? [DEFAULT_LEVER_API_KEY],
})

console.log(emulator.url)
console.error(
  `Lever emulator: API at ${emulator.url}/v1, Basic auth with username ${values['api-key']?.join(', ') ?? DEFAULT_LEVER_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

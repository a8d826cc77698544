import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_PIPEDRIVE_TOKEN, startPipedriveEmulator } from './index.js'

/** `tsx emulators/pipedrive/main.ts --port 8021 --persons 5000`: a Pipedrive emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8021' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    persons: { type: 'string' },
    burst: { type: 'string' },
    token: { type: 'string', multiple: true },
  },
})

const emulator = await startPipedriveEmulator({
  port: wholeNumberArg('port', values.port) ?? 8021,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  persons: wholeNumberArg('persons', values.persons),
  burst: wholeNumberArg('burst', values.burst),
  tokens: values.token ?? [DEFAULT_PIPEDRIVE_TOKEN],
})

console.log(emulator.url)
console.error(
  `Pipedrive emulator: API at ${emulator.url}, x-api-token ${values.token?.join(', ') ?? DEFAULT_PIPEDRIVE_TOKEN}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

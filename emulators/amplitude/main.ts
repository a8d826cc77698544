import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from './index.js'

/** `tsx emulators/amplitude/main.ts --port 8009 --seed 1 --events 100000`: an Amplitude emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8009' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    users: { type: 'string' },
    events: { type: 'string' },
  },
})

const emulator = await startAmplitudeEmulator({
  port: wholeNumberArg('port', values.port) ?? 8009,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  users: wholeNumberArg('users', values.users),
  events: wholeNumberArg('events', values.events),
})

console.log(emulator.url)
console.error(
  `Amplitude emulator at ${emulator.url} (analytics and ingestion paths): api_key ${DEFAULT_API_KEY}, ` +
    `secret_key ${DEFAULT_SECRET_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

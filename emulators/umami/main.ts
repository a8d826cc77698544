import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_UMAMI_API_KEY, DEFAULT_UMAMI_LOGIN_TOKEN, startUmamiEmulator } from './index.js'

/** `tsx emulators/umami/main.ts --port 8007 --seed 1 --sessions 5000`: an Umami emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8007' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    websites: { type: 'string' },
    sessions: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
  },
})

const emulator = await startUmamiEmulator({
  port: wholeNumberArg('port', values.port) ?? 8007,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  websites: wholeNumberArg('websites', values.websites),
  sessions: wholeNumberArg('sessions', values.sessions),
  apiKeys: values['api-key'] ?? [DEFAULT_UMAMI_API_KEY],
})

console.log(emulator.url)
console.error(
  `Umami emulator: Cloud API ${emulator.url}/v1 (x-umami-api-key ${values['api-key']?.join(', ') ?? DEFAULT_UMAMI_API_KEY}), ` +
    `self-hosted ${emulator.url}/api (Bearer login token ${DEFAULT_UMAMI_LOGIN_TOKEN}, or POST /api/auth/login admin/umami); ` +
    `control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

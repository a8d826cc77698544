import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { startGustoEmulator } from './index.js'

/** `tsx emulators/gusto/main.ts --port 8021 --employees 200`: a Gusto emulator; prints a company token. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8021' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    employees: { type: 'string' },
  },
})

const emulator = await startGustoEmulator({
  port: wholeNumberArg('port', values.port) ?? 8021,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  employees: wholeNumberArg('employees', values.employees),
})
const tokens = emulator.oauth.issueTokens()

console.log(emulator.url)
console.error(
  `Gusto emulator: API at ${emulator.url}/v1, Bearer ${tokens.access_token} (refresh ${tokens.refresh_token}); control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_BAMBOOHR_API_KEY, DEFAULT_BAMBOOHR_DOMAIN, startBamboohrEmulator } from './index.js'

/** `tsx emulators/bamboohr/main.ts --port 8020 --employees 500`: a BambooHR emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8020' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    employees: { type: 'string' },
    domain: { type: 'string', default: DEFAULT_BAMBOOHR_DOMAIN },
    'api-key': { type: 'string', multiple: true },
  },
})

const emulator = await startBamboohrEmulator({
  port: wholeNumberArg('port', values.port) ?? 8020,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  employees: wholeNumberArg('employees', values.employees),
  domain: values.domain,
  apiKeys: values['api-key'] ?? [DEFAULT_BAMBOOHR_API_KEY],
})

console.log(emulator.url)
console.error(
  `BambooHR emulator: API at ${emulator.url}/api/gateway.php/${values.domain}/v1, Basic ${values['api-key']?.join(', ') ?? DEFAULT_BAMBOOHR_API_KEY}:x; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from './index.js'

/** `tsx emulators/hubspot/main.ts --port 8020 --contacts 5000`: a HubSpot emulator. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8020' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    contacts: { type: 'string' },
    token: { type: 'string', multiple: true },
  },
})

const emulator = await startHubspotEmulator({
  port: wholeNumberArg('port', values.port) ?? 8020,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  contacts: wholeNumberArg('contacts', values.contacts),
  tokens: values.token ?? [DEFAULT_HUBSPOT_TOKEN],
})

console.log(emulator.url)
console.error(
  `HubSpot emulator: API at ${emulator.url}, Bearer ${values.token?.join(', ') ?? DEFAULT_HUBSPOT_TOKEN}; control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

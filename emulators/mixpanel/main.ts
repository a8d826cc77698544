import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  startMixpanelEmulator,
} from './index.js'

/** `tsx emulators/mixpanel/main.ts --port 8008 --seed 1 --events 100000`: a Mixpanel emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8008' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    events: { type: 'string' },
    profiles: { type: 'string' },
  },
})

const emulator = await startMixpanelEmulator({
  port: wholeNumberArg('port', values.port) ?? 8008,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  events: wholeNumberArg('events', values.events),
  profiles: wholeNumberArg('profiles', values.profiles),
})

console.log(emulator.url)
console.error(
  `Mixpanel emulator at ${emulator.url} (all hosts' paths): service account ${DEFAULT_SERVICE_ACCOUNT.username}:` +
    `${DEFAULT_SERVICE_ACCOUNT.secret}, project ${DEFAULT_PROJECT_ID}, token ${DEFAULT_PROJECT_TOKEN}; ` +
    `control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

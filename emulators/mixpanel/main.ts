import { parseArgs } from 'node:util'
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

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startMixpanelEmulator({
  port: int('port', values.port) ?? 8008,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  events: int('events', values.events),
  profiles: int('profiles', values.profiles),
})

console.log(emulator.url)
console.error(
  `Mixpanel emulator at ${emulator.url} (all hosts' paths): service account ${DEFAULT_SERVICE_ACCOUNT.username}:` +
    `${DEFAULT_SERVICE_ACCOUNT.secret}, project ${DEFAULT_PROJECT_ID}, token ${DEFAULT_PROJECT_TOKEN}; ` +
    `control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

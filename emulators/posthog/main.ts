import { parseArgs } from 'node:util'
import { DEFAULT_PERSONAL_API_KEY, DEFAULT_PROJECT_API_KEY, startPosthogEmulator } from './index.js'

/** `tsx emulators/posthog/main.ts --port 8001 --seed 1 --events 10000`: a PostHog emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8001' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    events: { type: 'string' },
    sessions: { type: 'string' },
    persons: { type: 'string' },
    projects: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
    'project-api-key': { type: 'string' },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startPosthogEmulator({
  port: int('port', values.port) ?? 8001,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  size: {
    events: int('events', values.events),
    sessions: int('sessions', values.sessions),
    persons: int('persons', values.persons),
    projects: int('projects', values.projects),
  },
  apiKeys: values['api-key'] ?? [DEFAULT_PERSONAL_API_KEY],
  projectApiKey: values['project-api-key'] ?? DEFAULT_PROJECT_API_KEY,
})

console.log(emulator.url)
console.error(
  `PostHog emulator: personal API key ${values['api-key']?.join(', ') ?? DEFAULT_PERSONAL_API_KEY}, ` +
    `project API key ${values['project-api-key'] ?? DEFAULT_PROJECT_API_KEY}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

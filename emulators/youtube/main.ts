import { parseArgs } from 'node:util'
import { startYoutubeEmulator } from './index.js'

/** `tsx emulators/youtube/main.ts --port 8008 --seed 1`: a YouTube emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8008' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    'managed-channels': { type: 'string' },
    'facts-per-day': { type: 'string' },
  },
})

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

const emulator = await startYoutubeEmulator({
  port: int('port', values.port) ?? 8008,
  host: values.host,
  seed: int('seed', values.seed) ?? 1,
  managedChannels: int('managed-channels', values['managed-channels']),
  factsPerDay: int('facts-per-day', values['facts-per-day']),
})

const tokens = emulator.authority.issueTokens({
  scopes: [
    'https://www.googleapis.com/auth/youtube.readonly',
    'https://www.googleapis.com/auth/yt-analytics.readonly',
  ],
})
console.log(emulator.url)
console.error(
  `YouTube emulator: access token ${tokens.access_token} (refresh ${tokens.refresh_token}); ` +
    `own channel ${emulator.seed.channels[0]?.id}; control endpoints under ${emulator.url}/__emulator/`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}

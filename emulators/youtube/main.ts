import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
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

const emulator = await startYoutubeEmulator({
  port: wholeNumberArg('port', values.port) ?? 8008,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  managedChannels: wholeNumberArg('managed-channels', values['managed-channels']),
  factsPerDay: wholeNumberArg('facts-per-day', values['facts-per-day']),
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

closeOnSignals(emulator)

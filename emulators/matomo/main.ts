import { parseArgs } from 'node:util'
import { closeOnSignals, wholeNumberArg } from '../kit/index.js'
import { DEFAULT_MATOMO_TOKEN, startMatomoEmulator } from './index.js'

/** `tsx emulators/matomo/main.ts --port 8006 --seed 1 --visits 5000`: a Matomo emulator for demos and benchmarks. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8006' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    sites: { type: 'string' },
    visits: { type: 'string' },
    token: { type: 'string', multiple: true },
  },
})

const emulator = await startMatomoEmulator({
  port: wholeNumberArg('port', values.port) ?? 8006,
  host: values.host,
  seed: wholeNumberArg('seed', values.seed) ?? 1,
  sites: wholeNumberArg('sites', values.sites),
  visitsPerSite: wholeNumberArg('visits', values.visits),
  tokens: values.token ?? [DEFAULT_MATOMO_TOKEN],
})

console.log(emulator.url)
console.error(
  `Matomo emulator: Reporting API ${emulator.url}/index.php, Tracking API ${emulator.url}/matomo.php, ` +
    `token_auth ${values.token?.join(', ') ?? DEFAULT_MATOMO_TOKEN} (POST body); control endpoints under ${emulator.url}/__emulator/`,
)

closeOnSignals(emulator)

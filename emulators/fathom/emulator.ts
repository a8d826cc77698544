import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installFathomAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_FATHOM_API_KEY } from './constants.js'
import { fathomFaultResponse, installErrorHandler } from './errors.js'
import { registerAggregationRoutes } from './routes/aggregations.js'
import { registerSiteRoutes } from './routes/sites.js'
import { FathomState } from './state.js'

export interface FathomEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Sites to seed (default 3). */
  readonly sites?: number
  /** Pageviews of the first site (default 500; the second gets a tenth). */
  readonly pageviews?: number
  /** Tokens with full account access (`*`). */
  readonly apiKeys?: readonly string[]
  /** Tokens with narrower abilities: `{token: ['read:ABCDEF']}`, `{token: ['all-sites-readonly']}`. */
  readonly tokens?: Readonly<Record<string, readonly string[]>>
  readonly until?: string
}

export interface FathomEmulator extends EmulatorHandle<FathomState> {
  /** Origin; the API lives under `${url}/v1`. */
  readonly url: string
}

/** Starts a Fathom emulator: sites CRUD with `starting_after` paging, and `/aggregations`. */
export async function startFathomEmulator(options: FathomEmulatorOptions = {}): Promise<FathomEmulator> {
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new FathomState({
    seed: options.seed ?? 1,
    sites: Math.max(1, options.sites ?? 3),
    pageviews: Math.max(0, options.pageviews ?? 500),
    apiKeys: options.apiKeys ?? [DEFAULT_FATHOM_API_KEY],
    tokens: options.tokens,
    untilMs: until,
  })
  const server = createEmulatorServer({ faultResponse: fathomFaultResponse })
  const { app } = server
  installErrorHandler(app)
  installFathomAuth(app, state)
  registerSiteRoutes(app, state)
  registerAggregationRoutes(app, state)
  return listenEmulator(server, state, options)
}

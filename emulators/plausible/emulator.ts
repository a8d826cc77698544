import {
  createEmulatorServer,
  type EmulatorHandle,
  installTextJsonParser,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installPlausibleAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_PLAUSIBLE_API_KEY } from './constants.js'
import { installErrorHandler, plausibleFaultResponse } from './errors.js'
import { registerEventRoutes } from './routes/event.js'
import { registerQueryRoutes } from './routes/query.js'
import { registerSiteRoutes } from './routes/sites.js'
import { PlausibleState } from './state.js'

export interface PlausibleEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Sites to seed (default 3). */
  readonly sites?: number
  /** Visits of the first site (default 200; the second gets a tenth). */
  readonly visits?: number
  readonly apiKeys?: readonly string[]
  /** False answers the Sites API with 402, as for a plan without it (default true). */
  readonly sitesApi?: boolean
  readonly until?: string
}

export type PlausibleEmulator = EmulatorHandle<PlausibleState>

/** Starts a Plausible emulator: Sites API, Events API and Stats API v2 `/api/v2/query`. */
export async function startPlausibleEmulator(
  options: PlausibleEmulatorOptions = {},
): Promise<PlausibleEmulator> {
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new PlausibleState({
    seed: options.seed ?? 1,
    sites: Math.max(1, options.sites ?? 3),
    visits: Math.max(0, options.visits ?? 200),
    apiKeys: options.apiKeys ?? [DEFAULT_PLAUSIBLE_API_KEY],
    sitesApi: options.sitesApi ?? true,
    untilMs: until,
  })
  const server = createEmulatorServer({ faultResponse: plausibleFaultResponse })
  const { app } = server
  // The tracker script posts events as text/plain to avoid CORS preflights.
  installTextJsonParser(app)
  installErrorHandler(app)
  installPlausibleAuth(app, state)
  registerSiteRoutes(app, state)
  registerEventRoutes(app, state)
  registerQueryRoutes(app, state)
  app.get('/api/health', async () => ({ postgres: 'ok', clickhouse: 'ok' }))
  return listenEmulator(server, state, options)
}

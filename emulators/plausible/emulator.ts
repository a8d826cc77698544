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
  /**
   * Keys with the `sites:provision:*` scope (default: every key in apiKeys, so a demo can create sites).
   * Plausible's own default is `stats:read:*` only (plausible/analytics@181ac2cf:lib/plausible_web/plugs/
   * authorize_public_api.ex, @implicit_scopes note): pass `[]` to model a plain Stats API key.
   */
  readonly provisionKeys?: readonly string[]
  /** `community` models a self-hosted Community Edition: no Sites API (default `cloud`). */
  readonly edition?: 'cloud' | 'community'
  /**
   * Whether an event sent without X-Forwarded-For comes from a data-centre address and is dropped
   * (default true: Unigate and its tests run on servers).
   */
  readonly senderInDataCentre?: boolean
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
    provisionKeys: options.provisionKeys ?? options.apiKeys ?? [DEFAULT_PLAUSIBLE_API_KEY],
    edition: options.edition ?? 'cloud',
    senderInDataCentre: options.senderInDataCentre ?? true,
    untilMs: until,
  })
  const server = createEmulatorServer({ faultResponse: plausibleFaultResponse })
  const { app } = server
  // The tracker script posts events as text/plain to avoid CORS preflights.
  installTextJsonParser(app)
  installErrorHandler(app)
  installPlausibleAuth(app, state)
  if (state.options.edition === 'cloud') registerSiteRoutes(app, state)
  registerEventRoutes(app, state)
  registerQueryRoutes(app, state)
  app.get('/api/health', async () => ({ postgres: 'ok', clickhouse: 'ok' }))
  return listenEmulator(server, state, options)
}

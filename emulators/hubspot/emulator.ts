import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installHubspotAuth } from './auth.js'
import {
  DAILY_LIMIT,
  DEFAULT_DATA_UNTIL,
  DEFAULT_HUBSPOT_TOKEN,
  DEFAULT_PORTAL_ID,
  SEARCH_LAG_MS,
  SEARCH_PER_SECOND,
  TEN_SECONDLY_LIMIT,
} from './constants.js'
import { hubspotFaultResponse, installErrorHandler } from './errors.js'
import { registerAccountRoutes } from './routes/account.js'
import { registerAssociationRoutes } from './routes/associations.js'
import { registerContactRoutes } from './routes/contacts.js'
import { registerOAuthRoutes } from './routes/oauth.js'
import { registerSearchRoutes } from './routes/search.js'
import { HubspotState, type OAuthClient } from './state.js'

export interface HubspotEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Contacts to seed (default 40). */
  readonly contacts?: number
  /** Private app tokens (default one, DEFAULT_HUBSPOT_TOKEN). */
  readonly tokens?: readonly string[]
  readonly until?: string
  /** Requests per rolling ten seconds per token (default 100, a Free account's app). */
  readonly tenSecondlyLimit?: number
  /**
   * Searches per second per account, every token together (default SEARCH_PER_SECOND, 4): "rate limited to
   * five requests per second per account" (https://developers.hubspot.com/docs/api-reference/search/guide,
   * "Limits"); four in https://developers.hubspot.com/changelog/crm-search-api-rate-limit-increase.
   */
  readonly searchPerSecond?: number
  /** How long a write takes to show in search (default SEARCH_LAG_MS, a few seconds, as HubSpot's index lags). */
  readonly searchLagMs?: number
  /** Requests a day per private app token (default 250,000, a Free or Starter account). */
  readonly dailyLimit?: number
}

export interface HubspotEmulator extends EmulatorHandle<HubspotState> {
  registerClient(client: OAuthClient): void
}

/** Starts a HubSpot emulator: CRM v3 contacts, search, v4 association reads, account info and OAuth. */
export async function startHubspotEmulator(options: HubspotEmulatorOptions = {}): Promise<HubspotEmulator> {
  const state = new HubspotState({
    seed: options.seed ?? 1,
    contacts: Math.max(0, options.contacts ?? 40),
    tokens: options.tokens ?? [DEFAULT_HUBSPOT_TOKEN],
    portalId: DEFAULT_PORTAL_ID,
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    tenSecondlyLimit: options.tenSecondlyLimit ?? TEN_SECONDLY_LIMIT,
    searchPerSecond: options.searchPerSecond ?? SEARCH_PER_SECOND,
    searchLagMs: options.searchLagMs ?? SEARCH_LAG_MS,
    dailyLimit: options.dailyLimit ?? DAILY_LIMIT,
  })
  const server = createEmulatorServer({ faultResponse: hubspotFaultResponse })
  const { app } = server
  installErrorHandler(app)
  installHubspotAuth(app, state)
  registerAccountRoutes(app, state)
  registerContactRoutes(app, state)
  registerSearchRoutes(app, state)
  registerAssociationRoutes(app, state)
  registerOAuthRoutes(app, state)
  const handle = await listenEmulator(server, state, options)
  return { ...handle, registerClient: (client) => state.registerClient(client) }
}

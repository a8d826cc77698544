import {
  createEmulatorServer,
  type EmulatorHandle,
  type FaultResponse,
  installFormParser,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import type { ArchivingRowLimits } from './archiving.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_MATOMO_TOKEN } from './constants.js'
import { matomoError } from './errors.js'
import { registerApiRoutes, registerTrackingRoutes } from './routes.js'
import { MatomoState } from './state.js'

export interface MatomoEmulatorOptions extends ListenOptions {
  readonly seed?: number
  readonly sites?: number
  /** Seeded visits per site (about three per visitor, one to six actions each). */
  readonly visitsPerSite?: number
  /** Accepted super-user token_auth values (default `[DEFAULT_MATOMO_TOKEN]`). */
  readonly tokens?: readonly string[]
  /** Tokens of view-only users, each with the site ids it may read. */
  readonly viewTokens?: Readonly<Record<string, readonly string[]>>
  /** End of the seeded data's 30-day window (ISO-8601); fixed by default. */
  readonly until?: string
  /** Refuse a token_auth sent in the URL (default true: Matomo's recommended token setting). */
  readonly secureOnlyTokens?: boolean
  /** `datatable_archiving_maximum_rows_*` settings (defaults from config/global.ini.php). */
  readonly archivingLimits?: Partial<ArchivingRowLimits>
  /** The language of the token's user (default `en`): it labels the reports' summary row. */
  readonly userLanguage?: string
}

export interface MatomoEmulator extends EmulatorHandle<MatomoState> {
  /** The Matomo base address (`/index.php` Reporting API, `/matomo.php` Tracking API). */
  readonly url: string
}

/**
 * What an injected fault status looks like. Matomo's core limits no API request rate (a 429 comes from
 * whatever sits in front of it), so the 429 body is only shaped like a Matomo error; a 5xx is the web
 * server's HTML page.
 */
function matomoFaultResponse(status: number): FaultResponse {
  if (status === 429) return { body: matomoError('Too many requests. Please try again later.') }
  if (status >= 500)
    return {
      body: `<html><head><title>${status}</title></head><body><h1>${status}</h1></body></html>`,
      headers: { 'content-type': 'text/html' },
    }
  return { body: matomoError(`HTTP ${status}`) }
}

/** Starts a Matomo emulator: seeded sites and visits, Reporting and Tracking APIs, faults and a request record. */
export async function startMatomoEmulator(options: MatomoEmulatorOptions = {}): Promise<MatomoEmulator> {
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new MatomoState({
    seed: options.seed ?? 1,
    sites: Math.max(1, options.sites ?? 3),
    visitsPerSite: Math.max(0, options.visitsPerSite ?? 200),
    tokens: options.tokens ?? [DEFAULT_MATOMO_TOKEN],
    ...(options.viewTokens ? { viewTokens: options.viewTokens } : {}),
    ...(options.archivingLimits ? { archivingLimits: options.archivingLimits } : {}),
    ...(options.userLanguage ? { userLanguage: options.userLanguage } : {}),
    untilMs: until,
  })
  const server = createEmulatorServer({ faultResponse: matomoFaultResponse })
  const { app } = server
  // Matomo takes form posts.
  installFormParser(app)
  registerApiRoutes(app, state, { secureOnlyTokens: options.secureOnlyTokens ?? true })
  registerTrackingRoutes(app, state)
  return listenEmulator(server, state, options)
}

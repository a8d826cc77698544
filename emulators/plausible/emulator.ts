import { createEmulatorServer, type Fault, listen, type RecordedRequest } from '../kit/index.js'
import { installPlausibleAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_PLAUSIBLE_API_KEY } from './constants.js'
import { installErrorHandler, plausibleFaultResponse } from './errors.js'
import { registerEventRoutes } from './routes/event.js'
import { registerQueryRoutes } from './routes/query.js'
import { registerSiteRoutes } from './routes/sites.js'
import { PlausibleState } from './state.js'

export interface PlausibleEmulatorOptions {
  readonly port?: number
  readonly host?: string
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

export interface PlausibleEmulator {
  readonly url: string
  readonly state: PlausibleState
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

/** Starts a Plausible emulator: Sites API, Events API and Stats API v2 `/api/v2/query`. */
export async function startPlausibleEmulator(
  options: PlausibleEmulatorOptions = {},
): Promise<PlausibleEmulator> {
  const until = Date.parse(options.until ?? DEFAULT_DATA_UNTIL)
  if (Number.isNaN(until)) throw new Error(`until: '${options.until}' is not an ISO-8601 date`)
  const state = new PlausibleState({
    seed: options.seed ?? 1,
    sites: Math.max(1, options.sites ?? 3),
    visits: Math.max(0, options.visits ?? 200),
    apiKeys: options.apiKeys ?? [DEFAULT_PLAUSIBLE_API_KEY],
    sitesApi: options.sitesApi ?? true,
    untilMs: until,
  })
  const { app, recorder, faults } = createEmulatorServer({ faultResponse: plausibleFaultResponse })
  // The tracker script posts events as text/plain to avoid CORS preflights.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)))
    } catch {
      done(null, body)
    }
  })
  installErrorHandler(app)
  installPlausibleAuth(app, state)
  registerSiteRoutes(app, state)
  registerEventRoutes(app, state)
  registerQueryRoutes(app, state)
  app.get('/api/health', async () => ({ postgres: 'ok', clickhouse: 'ok' }))
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    state,
    requests: () => recorder.all(),
    clearRequests: () => recorder.clear(),
    fault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    close: () => app.close(),
  }
}

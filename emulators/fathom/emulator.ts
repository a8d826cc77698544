import { createEmulatorServer, type Fault, listen, type RecordedRequest } from '../kit/index.js'
import { installFathomAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_FATHOM_API_KEY } from './constants.js'
import { fathomFaultResponse, installErrorHandler } from './errors.js'
import { registerAggregationRoutes } from './routes/aggregations.js'
import { registerSiteRoutes } from './routes/sites.js'
import { FathomState } from './state.js'

export interface FathomEmulatorOptions {
  readonly port?: number
  readonly host?: string
  readonly seed?: number
  /** Sites to seed (default 3). */
  readonly sites?: number
  /** Pageviews of the first site (default 500; the second gets a tenth). */
  readonly pageviews?: number
  readonly apiKeys?: readonly string[]
  readonly until?: string
}

export interface FathomEmulator {
  /** Origin; the API lives under `${url}/v1`. */
  readonly url: string
  readonly state: FathomState
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

/** Starts a Fathom emulator: sites CRUD with `starting_after` paging, and `/aggregations`. */
export async function startFathomEmulator(options: FathomEmulatorOptions = {}): Promise<FathomEmulator> {
  const until = Date.parse(options.until ?? DEFAULT_DATA_UNTIL)
  if (Number.isNaN(until)) throw new Error(`until: '${options.until}' is not an ISO-8601 date`)
  const state = new FathomState({
    seed: options.seed ?? 1,
    sites: Math.max(1, options.sites ?? 3),
    pageviews: Math.max(0, options.pageviews ?? 500),
    apiKeys: options.apiKeys ?? [DEFAULT_FATHOM_API_KEY],
    untilMs: until,
  })
  const { app, recorder, faults } = createEmulatorServer({ faultResponse: fathomFaultResponse })
  installErrorHandler(app)
  installFathomAuth(app, state)
  registerSiteRoutes(app, state)
  registerAggregationRoutes(app, state)
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

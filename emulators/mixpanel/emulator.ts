import {
  createEmulatorServer,
  type Fault,
  type FaultResponse,
  listen,
  type RecordedRequest,
} from '../kit/index.js'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  ENGAGE_PAGE_SIZE,
} from './constants.js'
import { registerExportRoutes } from './routes-export.js'
import { registerIngestRoutes } from './routes-ingest.js'
import { registerQueryRoutes } from './routes-query.js'
import { MixpanelState } from './state.js'

export interface MixpanelEmulatorOptions {
  readonly port?: number
  readonly host?: string
  readonly seed?: number
  readonly events?: number
  readonly profiles?: number
  readonly projectId?: string
  readonly projectToken?: string
  readonly serviceAccount?: { readonly username: string; readonly secret: string }
  /** Engage's page size (Mixpanel: 1000); smaller makes paging testable with few profiles. */
  readonly engagePageSize?: number
  readonly until?: string
}

export interface MixpanelEmulator {
  /** One address serving ingestion, Query, Export and App API paths. */
  readonly url: string
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  readonly state: MixpanelState
  close(): Promise<void>
}

function mixpanelFaultResponse(status: number): FaultResponse {
  if (status === 429) {
    return {
      body: {
        code: 429,
        error: 'Project exceeded rate limits. Please retry the request with exponential backoff.',
        status: 'Too Many Requests',
      },
    }
  }
  return { body: { error: status >= 500 ? 'Internal server error' : `HTTP ${status}`, status: 'error' } }
}

export async function startMixpanelEmulator(
  options: MixpanelEmulatorOptions = {},
): Promise<MixpanelEmulator> {
  const until = Date.parse(options.until ?? DEFAULT_DATA_UNTIL)
  if (Number.isNaN(until)) throw new Error(`until: '${options.until}' is not an ISO-8601 date`)
  const state = new MixpanelState({
    seed: options.seed ?? 1,
    projectId: options.projectId ?? DEFAULT_PROJECT_ID,
    projectToken: options.projectToken ?? DEFAULT_PROJECT_TOKEN,
    serviceAccount: options.serviceAccount ?? DEFAULT_SERVICE_ACCOUNT,
    events: options.events ?? 2000,
    profiles: options.profiles ?? 100,
    untilMs: until,
    enagePageSize: options.engagePageSize ?? ENGAGE_PAGE_SIZE,
  })
  // /import takes at most 10 MB of uncompressed JSON per request.
  const { app, recorder, faults } = createEmulatorServer({
    faultResponse: mixpanelFaultResponse,
    bodyLimit: 10 * 1024 * 1024,
  })
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error.statusCode === 413) {
      return reply.code(413).send({
        code: 413,
        error: 'request exceeds max limit of 10485760 bytes',
        status: 'Request Entity Too Large',
      })
    }
    return reply.code(error.statusCode ?? 500).send({ error: error.message, status: 'error' })
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))))
  })
  registerExportRoutes(app, state)
  registerIngestRoutes(app, state)
  registerQueryRoutes(app, state)
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    requests: () => recorder.all(),
    clearRequests: () => recorder.clear(),
    fault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    state,
    close: () => app.close(),
  }
}

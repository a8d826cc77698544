import {
  createEmulatorServer,
  type EmulatorHandle,
  type FaultResponse,
  installFormParser,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PROFILE_LAG_MS,
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  DEFAULT_TIMEZONE,
  ENGAGE_PAGE_SIZE,
} from './constants.js'
import { registerExportRoutes } from './routes-export.js'
import { registerIngestRoutes } from './routes-ingest.js'
import { registerQueryRoutes } from './routes-query.js'
import { MixpanelState } from './state.js'

export interface MixpanelEmulatorOptions extends ListenOptions {
  readonly seed?: number
  readonly events?: number
  readonly profiles?: number
  readonly projectId?: string
  readonly projectToken?: string
  readonly serviceAccount?: { readonly username: string; readonly secret: string }
  /** Engage's page size (Mixpanel: 1000); smaller makes paging testable with few profiles. */
  readonly engagePageSize?: number
  readonly until?: string
  /** The project's time zone (default UTC). */
  readonly timezone?: string
  /** A project created before 2023-01-01, which stores event times in its zone (default false). */
  readonly legacyLocalTime?: boolean
  /** Delay before a profile update is readable (default 30 s; 0 makes writes readable at once). */
  readonly profileLagMs?: number
}

export interface MixpanelEmulator extends EmulatorHandle<MixpanelState> {
  /** One address serving ingestion, Query, Export and App API paths. */
  readonly url: string
}

/** Rate limits answer 429 (mixpanel/docs@ba22906:reference/rate-limits.mdx); the body is the ingestion API's error shape. */
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
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new MixpanelState({
    seed: options.seed ?? 1,
    projectId: options.projectId ?? DEFAULT_PROJECT_ID,
    projectToken: options.projectToken ?? DEFAULT_PROJECT_TOKEN,
    serviceAccount: options.serviceAccount ?? DEFAULT_SERVICE_ACCOUNT,
    events: options.events ?? 2000,
    profiles: options.profiles ?? 100,
    untilMs: until,
    enagePageSize: options.engagePageSize ?? ENGAGE_PAGE_SIZE,
    timezone: options.timezone ?? DEFAULT_TIMEZONE,
    legacyLocalTime: options.legacyLocalTime ?? false,
    profileLagMs: options.profileLagMs ?? DEFAULT_PROFILE_LAG_MS,
  })
  // /import takes at most 10MB of uncompressed JSON per request (mixpanel/docs@ba22906:reference/import-events.mdx).
  const server = createEmulatorServer({
    faultResponse: mixpanelFaultResponse,
    bodyLimit: 10 * 1024 * 1024,
  })
  const { app } = server
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
  installFormParser(app)
  registerExportRoutes(app, state)
  registerIngestRoutes(app, state)
  registerQueryRoutes(app, state)
  return listenEmulator(server, state, options)
}

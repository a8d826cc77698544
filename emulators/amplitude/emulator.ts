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
  DEFAULT_API_KEY,
  DEFAULT_APP_ID,
  DEFAULT_DATA_UNTIL,
  DEFAULT_SECRET_KEY,
  EXPORT_MAX_BYTES,
} from './constants.js'
import {
  registerDashboardRoutes,
  registerExportRoute,
  registerIngestRoutes,
  registerUserRoutes,
} from './routes.js'
import { AmplitudeState } from './state.js'

export interface AmplitudeEmulatorOptions extends ListenOptions {
  readonly seed?: number
  readonly users?: number
  readonly events?: number
  readonly apiKey?: string
  readonly secretKey?: string
  readonly app?: number
  readonly until?: string
  /** The export's size ceiling in bytes (Amplitude: 4 GB); smaller makes the 400 testable. */
  readonly exportMaxBytes?: number
  /** The project's time zone, in which Dashboard REST counts days (default UTC). */
  readonly timezone?: string
}

export interface AmplitudeEmulator extends EmulatorHandle<AmplitudeState> {
  /** One address serving the analytics (`/api/2/…`) and ingestion (`/2/httpapi`, `/identify`) paths. */
  readonly url: string
}

/** HTTP V2's 429 body: `eps_threshold` and the throttled devices and users (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md, 429). */
function amplitudeFaultResponse(status: number): FaultResponse {
  if (status === 429) {
    return {
      body: {
        code: 429,
        error: 'Too many requests for some devices and users',
        eps_threshold: 30,
        throttled_devices: {},
        throttled_users: {},
        throttled_events: [],
      },
    }
  }
  return { body: { code: status, error: status >= 500 ? 'Internal server error' : `HTTP ${status}` } }
}

export async function startAmplitudeEmulator(
  options: AmplitudeEmulatorOptions = {},
): Promise<AmplitudeEmulator> {
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new AmplitudeState(
    options.app ?? DEFAULT_APP_ID,
    options.seed ?? 1,
    options.users ?? 50,
    options.events ?? 1000,
    until,
  )
  state.timezone = options.timezone ?? 'UTC'
  const keys = {
    apiKey: options.apiKey ?? DEFAULT_API_KEY,
    secretKey: options.secretKey ?? DEFAULT_SECRET_KEY,
  }
  // HTTP V2 refuses requests over 1 MB with its own 413 body (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md: "Keep request sizes under 1 MB").
  const server = createEmulatorServer({
    faultResponse: amplitudeFaultResponse,
    bodyLimit: 1024 * 1024,
  })
  const { app } = server
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error.statusCode === 413) return reply.code(413).send({ code: 413, error: 'Payload too large' })
    return reply.code(error.statusCode ?? 500).send({ code: error.statusCode ?? 500, error: error.message })
  })
  installFormParser(app)
  registerExportRoute(app, state, keys, { maxBytes: options.exportMaxBytes ?? EXPORT_MAX_BYTES })
  registerIngestRoutes(app, state, keys)
  registerUserRoutes(app, state, keys)
  registerDashboardRoutes(app, state, keys)
  return listenEmulator(server, state, options)
}

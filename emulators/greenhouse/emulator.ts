import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installGreenhouseAuth, registerTokenEndpoint } from './auth.js'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  SCOPES,
} from './constants.js'
import { greenhouseFaultResponse, installErrorHandler } from './errors.js'
import { registerRoutes } from './routes.js'
import { GreenhouseState } from './state.js'

export interface GreenhouseEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Candidates to seed (default 40), each with one or two applications. */
  readonly candidates?: number
  /**
   * Harvest V3 (OAuth) credentials: client id -> secret and scopes. Default: the default client with every
   * scope the emulator knows.
   */
  readonly clients?: Readonly<Record<string, { secret: string; scopes: readonly string[] }>>
  /** Requests per credential per 30-second window (default 50; see constants.ts). */
  readonly rateLimit?: number
  readonly until?: string
  /**
   * How long a cursor works after it was issued. Greenhouse's cursors expire (a 422, airbytehq/airbyte@0481622
   * airbyte-integrations/connectors/source-greenhouse/manifest.yaml, error_handler); the default, 15 minutes,
   * is ours (DEFAULT_CURSOR_TTL_MS in constants.ts says why).
   */
  readonly cursorTtlMs?: number
}

export type GreenhouseEmulator = EmulatorHandle<GreenhouseState>

/**
 * Starts a Greenhouse Harvest v3 emulator: the token endpoint at `${url}/token` (auth.greenhouse.io's) and
 * applications and offers under `${url}/v3`.
 */
export async function startGreenhouseEmulator(
  options: GreenhouseEmulatorOptions = {},
): Promise<GreenhouseEmulator> {
  const state = new GreenhouseState({
    seed: options.seed ?? 1,
    candidates: Math.max(1, options.candidates ?? 40),
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    clients: options.clients ?? {
      [DEFAULT_GREENHOUSE_CLIENT_ID]: { secret: DEFAULT_GREENHOUSE_CLIENT_SECRET, scopes: SCOPES },
    },
    rateLimit: options.rateLimit,
    cursorTtlMs: options.cursorTtlMs,
  })
  const server = createEmulatorServer({ faultResponse: greenhouseFaultResponse })
  installErrorHandler(server.app)
  registerTokenEndpoint(server.app, state)
  installGreenhouseAuth(server.app, state)
  registerRoutes(server.app, state)
  return listenEmulator(server, state, options)
}

import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installGreenhouseAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_GREENHOUSE_API_KEY } from './constants.js'
import { greenhouseFaultResponse, installErrorHandler } from './errors.js'
import { registerRoutes } from './routes.js'
import { GreenhouseState } from './state.js'

export interface GreenhouseEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Candidates to seed (default 40), each with one or two applications. */
  readonly candidates?: number
  /** Keys with every endpoint permission. */
  readonly apiKeys?: readonly string[]
  /** Keys with only some endpoint permissions: `{key: ['applications.list']}`. */
  readonly scopedKeys?: Readonly<Record<string, readonly string[]>>
  /** Requests per key per 10 seconds (default 50). */
  readonly rateLimit?: number
  readonly until?: string
}

export type GreenhouseEmulator = EmulatorHandle<GreenhouseState>

/** Starts a Greenhouse Harvest (v1) emulator: applications, their offers, candidates. The API is under `${url}/v1`. */
export async function startGreenhouseEmulator(
  options: GreenhouseEmulatorOptions = {},
): Promise<GreenhouseEmulator> {
  const state = new GreenhouseState({
    seed: options.seed ?? 1,
    candidates: Math.max(1, options.candidates ?? 40),
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    apiKeys: options.apiKeys ?? [DEFAULT_GREENHOUSE_API_KEY],
    scopedKeys: options.scopedKeys,
    rateLimit: options.rateLimit,
  })
  const server = createEmulatorServer({ faultResponse: greenhouseFaultResponse })
  installErrorHandler(server.app)
  installGreenhouseAuth(server.app, state)
  registerRoutes(server.app, state)
  return listenEmulator(server, state, options)
}

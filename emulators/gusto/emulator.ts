import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
} from '../kit/index.js'
import { installApiAuth } from './auth.js'
import { gustoFaultResponse, installErrorHandler } from './errors.js'
import { GustoOAuth, registerOAuthRoutes } from './oauth.js'
import { registerRoutes } from './routes.js'
import { GustoState } from './state.js'

export interface GustoEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Employees to seed (default 12). */
  readonly employees?: number
  /** The day payroll history runs up to (YYYY-MM-DD; default today, so the connector's windows reach it). */
  readonly until?: string
  /** Days of history before `until` (default 400: two of Gusto's one-year payroll windows). */
  readonly historyDays?: number
  /** Calls one grant may make per 60-second window (default 200, Gusto's). */
  readonly rateLimit?: number
  readonly accessTokenTtlSeconds?: number
}

export interface GustoEmulator extends EmulatorHandle<GustoState> {
  readonly oauth: GustoOAuth
}

/** Starts a Gusto emulator: the API at `${url}/v1`, OAuth at `${url}/oauth/authorize` and `/oauth/token`. */
export async function startGustoEmulator(options: GustoEmulatorOptions = {}): Promise<GustoEmulator> {
  const state = new GustoState({
    seed: options.seed ?? 1,
    employees: Math.max(1, options.employees ?? 12),
    until: options.until ?? new Date().toISOString().slice(0, 10),
    historyDays: options.historyDays ?? 400,
  })
  const oauth = new GustoOAuth(state.companyUuid, options.accessTokenTtlSeconds)
  const server = createEmulatorServer({ faultResponse: gustoFaultResponse })
  installErrorHandler(server.app)
  installApiAuth(server.app, oauth, { rateLimit: options.rateLimit })
  registerOAuthRoutes(server.app, oauth)
  registerRoutes(server.app, state, oauth)
  const handle = await listenEmulator(server, state, options)
  return { ...handle, oauth }
}

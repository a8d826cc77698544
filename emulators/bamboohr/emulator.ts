import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installBamboohrAuth } from './auth.js'
import { DEFAULT_BAMBOOHR_API_KEY, DEFAULT_BAMBOOHR_DOMAIN, DEFAULT_DATA_UNTIL } from './constants.js'
import { registerEmployeeWrites } from './employee-writes.js'
import { bamboohrFaultResponse, installErrorHandler } from './errors.js'
import { registerRoutes } from './routes.js'
import { BamboohrState } from './state.js'
import { registerWebhookRoutes } from './webhook-routes.js'

export interface BamboohrEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Employees to seed (default 30). */
  readonly employees?: number
  /** The company's subdomain (default `acme`). */
  readonly domain?: string
  readonly apiKeys?: readonly string[]
  readonly until?: string
  /** Lets webhooks use http:// addresses (BambooHR takes https:// only), for tests on one machine. */
  readonly insecureHookUrls?: boolean
  /** Shortens BambooHR's retry delays (5, 10, 20, 40, 80 minutes) for tests. */
  readonly hookRetryDelaysMs?: readonly number[]
  /** Employees the keys' user may not see (`state.hideEmployee` does the same later). */
  readonly hiddenEmployees?: readonly number[]
  /** Fields the keys' user may not read, besides `ssn` (an access level without compensation, say). */
  readonly restrictedFields?: readonly string[]
}

export type BamboohrEmulator = EmulatorHandle<BamboohrState>

/** Starts a BambooHR emulator: the API-key gateway at `${url}/api/gateway.php/{domain}/v1`. */
export async function startBamboohrEmulator(
  options: BamboohrEmulatorOptions = {},
): Promise<BamboohrEmulator> {
  const state = new BamboohrState({
    seed: options.seed ?? 1,
    employees: Math.max(1, options.employees ?? 30),
    domain: options.domain ?? DEFAULT_BAMBOOHR_DOMAIN,
    apiKeys: options.apiKeys ?? [DEFAULT_BAMBOOHR_API_KEY],
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    insecureHookUrls: options.insecureHookUrls ?? false,
    ...(options.hookRetryDelaysMs ? { hookRetryDelaysMs: options.hookRetryDelaysMs } : {}),
    ...(options.hiddenEmployees ? { hiddenEmployees: options.hiddenEmployees } : {}),
    ...(options.restrictedFields ? { restrictedFields: options.restrictedFields } : {}),
  })
  const server = createEmulatorServer({ faultResponse: bamboohrFaultResponse })
  installErrorHandler(server.app)
  installBamboohrAuth(server.app, state)
  registerRoutes(server.app, state)
  registerEmployeeWrites(server.app, state)
  registerWebhookRoutes(server.app, state)
  const handle = await listenEmulator(server, state, options)
  return {
    ...handle,
    close: async () => {
      state.hooks.close()
      await handle.close()
    },
  }
}

import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installPipedriveAuth } from './auth.js'
import {
  API_TOKEN_BURST,
  DAILY_TOKEN_BUDGET,
  DEFAULT_APP_SCOPES,
  DEFAULT_DATA_UNTIL,
  DEFAULT_PIPEDRIVE_TOKEN,
  SEARCH_BURST,
} from './constants.js'
import { installErrorHandler, pipedriveFaultResponse } from './errors.js'
import { registerOAuthRoutes } from './routes/oauth.js'
import { registerPersonRoutes } from './routes/persons.js'
import { registerWebhookRoutes } from './routes/webhooks.js'
import { PipedriveState } from './state.js'

export interface PipedriveEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Persons to seed (default 40). */
  readonly persons?: number
  readonly tokens?: readonly string[]
  readonly until?: string
  /** Requests per 2-second window per token (default 20, an Essential plan's API token). */
  readonly burst?: number
  /**
   * Searches per 2-second window per token (default 10, Pipedrive's on every plan:
   * https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, "Limits").
   */
  readonly searchBurst?: number
  /** The company's daily token budget (default 30,000: one seat on the lowest plan). */
  readonly dailyTokenBudget?: number
  /** Whether the company has contact sync on, so persons answer `job_title` and `postal_address` (default on). */
  readonly contactSync?: boolean
  /** Waits before retrying a failed webhook call (default Pipedrive's 3, 30 and 150 seconds). */
  readonly hookRetryDelaysMs?: readonly number[]
}

export interface PipedriveEmulator extends EmulatorHandle<PipedriveState> {
  /** Registers an OAuth app; `scopes` are those chosen for it in Developer Hub (default base and contacts:full). */
  registerClient(client: {
    clientId: string
    clientSecret: string
    redirectUris: readonly string[]
    scopes?: readonly string[]
  }): void
}

/** Starts a Pipedrive emulator: API v2 persons, `GET /api/v1/users/me`, webhooks v2, and its OAuth server. */
export async function startPipedriveEmulator(
  options: PipedriveEmulatorOptions = {},
): Promise<PipedriveEmulator> {
  const state = new PipedriveState({
    seed: options.seed ?? 1,
    persons: Math.max(0, options.persons ?? 40),
    tokens: options.tokens ?? [DEFAULT_PIPEDRIVE_TOKEN],
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    burst: options.burst ?? API_TOKEN_BURST,
    searchBurst: options.searchBurst ?? SEARCH_BURST,
    dailyTokenBudget: options.dailyTokenBudget ?? DAILY_TOKEN_BUDGET,
    contactSync: options.contactSync ?? true,
    ...(options.hookRetryDelaysMs ? { hookRetryDelaysMs: options.hookRetryDelaysMs } : {}),
  })
  const server = createEmulatorServer({ faultResponse: pipedriveFaultResponse })
  installErrorHandler(server.app)
  installPipedriveAuth(server.app, state)
  registerPersonRoutes(server.app, state)
  let url = ''
  registerOAuthRoutes(server.app, state, () => url)
  registerWebhookRoutes(server.app, state, () => url)
  const handle = await listenEmulator(server, state, options)
  url = handle.url
  return {
    ...handle,
    close: async () => {
      state.hooks.close()
      await handle.close()
    },
    registerClient: (c) =>
      state.clients.set(c.clientId, {
        clientSecret: c.clientSecret,
        redirectUris: c.redirectUris,
        // `base` is "the default permission that is always enabled for all apps"
        // (https://pipedrive.readme.io/docs/marketplace-scopes-and-permissions-explanations).
        scopes: [...new Set(['base', ...(c.scopes ?? DEFAULT_APP_SCOPES)])],
      }),
  }
}

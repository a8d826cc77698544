import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installLeverAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_LEVER_API_KEY } from './constants.js'
import { installErrorHandler, leverFaultResponse } from './errors.js'
import { LeverOAuth, registerOAuthRoutes } from './oauth.js'
import { registerRoutes } from './routes.js'
import { LeverState } from './state.js'
import { type LeverWebhookOptions, registerWebhookRoutes } from './webhooks.js'
import { deleteOpportunity, registerWriteRoutes } from './writes.js'

export interface LeverEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Contacts to seed (default 40), each with one or two opportunities. */
  readonly contacts?: number
  readonly apiKeys?: readonly string[]
  /** Of those, the keys created without access to confidential data. */
  readonly keysWithoutConfidentialAccess?: readonly string[]
  /** OAuth access tokens accepted as bearers. */
  readonly accessTokens?: readonly string[]
  /** Token bucket refill per second and size (default 10 and 20). */
  readonly ratePerSecond?: number
  readonly burst?: number
  readonly until?: string
  /** Webhook groups toggled on, plain-HTTP receivers, retry waits (see webhooks.ts). */
  readonly webhooks?: LeverWebhookOptions
}

export interface LeverEmulator extends EmulatorHandle<LeverState> {
  /** The emulated auth.lever.co: its `/authorize` and `/oauth/token` live on the same origin. */
  readonly oauth: LeverOAuth
  /** The emulator's own hook: deletes an opportunity as a user would in Lever's app (fires `candidateDeleted`). */
  deleteOpportunity(id: string): boolean
}

/**
 * Starts a Lever API (v1) emulator: opportunities (read, create, stage and archive changes), their offers,
 * stages, archive reasons and webhooks under `${url}/v1`, and Lever's OAuth server (`/authorize`,
 * `/oauth/token`) at its root.
 */
export async function startLeverEmulator(options: LeverEmulatorOptions = {}): Promise<LeverEmulator> {
  const state = new LeverState({
    seed: options.seed ?? 1,
    contacts: Math.max(1, options.contacts ?? 40),
    untilMs: parseUntil(options.until, DEFAULT_DATA_UNTIL),
    apiKeys: options.apiKeys ?? [DEFAULT_LEVER_API_KEY],
    keysWithoutConfidentialAccess: options.keysWithoutConfidentialAccess,
    accessTokens: options.accessTokens,
    ratePerSecond: options.ratePerSecond,
    burst: options.burst,
    webhooks: options.webhooks,
  })
  const server = createEmulatorServer({ faultResponse: leverFaultResponse })
  installErrorHandler(server.app)
  installLeverAuth(server.app, state)
  registerRoutes(server.app, state)
  registerWriteRoutes(server.app, state)
  registerWebhookRoutes(server.app, state.webhooks)
  const oauth = new LeverOAuth(state)
  registerOAuthRoutes(server.app, oauth)
  const handle = await listenEmulator(server, state, options)
  return {
    ...handle,
    oauth,
    deleteOpportunity: (id) => deleteOpportunity(state, id),
    close: async () => {
      state.webhooks.close()
      await handle.close()
    },
  }
}

import type { AuthorizationSettings } from '../config.js'
import type {
  ConnectionService,
  ConnectionStore,
  CredentialsPinner,
  TokenRefresher,
} from '../connections/index.js'
import type { SecretBox } from '../crypto/keys.js'
import type { ProviderTransport } from '../outbound/index.js'
import type { Db } from '../store/index.js'
import type { WorkspaceSettingsCache, WorkspaceStore } from '../workspaces/index.js'
import { AuthorizationFlow } from './flow.js'
import { KeyPage } from './key-page.js'
import { OAuthAppStore } from './oauth-apps.js'
import { OAuthCallback } from './oauth-callback.js'
import { oauthSpecOf } from './oauth-spec.js'
import { RateLimiter } from './rate-limit.js'
import { AuthStateStore } from './state-store.js'
import type { RefreshLock } from './tokens/lock.js'
import { holdsOAuthTokens, pinnedAddresses } from './tokens/pinned.js'
import { OAuthRefresher } from './tokens/refresher.js'
import { revokeBeforeRemove } from './tokens/revoke.js'
import { TokenClient } from './tokens/token-client.js'

export { type OAuthApp, OAuthAppStore } from './oauth-apps.js'
export { authorizationRoutes } from './routes.js'
export { redirectSigningInput, type SignedRedirect, signRedirect, verifyRedirectSig } from './sig.js'
export { RefreshLock } from './tokens/lock.js'
export { OAuthRefresher } from './tokens/refresher.js'

export interface Authorization {
  readonly flow: AuthorizationFlow
  readonly keyPage: KeyPage
  readonly oauthCallback: OAuthCallback
  readonly oauthApps: OAuthAppStore
  readonly tokenClient: TokenClient
  /** Per client address, for the auth endpoint and the hosted key page. */
  readonly addressLimits: { readonly auth: RateLimiter; readonly keyPage: RateLimiter }
}

export interface AuthorizationDeps {
  readonly db: Db
  readonly box: SecretBox
  readonly publicUrl: string
  readonly settings: AuthorizationSettings
  readonly providerTimeoutMs: number
  readonly transport: ProviderTransport
  readonly workspaces: WorkspaceStore
  readonly workspaceSettings: WorkspaceSettingsCache
  readonly connections: ConnectionService
}

export function createAuthorization(d: AuthorizationDeps): Authorization {
  const states = new AuthStateStore(d.db, d.box, d.settings.stateTtlMs, d.settings.maxPendingPerWorkspace)
  const workspaceLimit = new RateLimiter(d.settings.workspaceRateLimitPerMinute)
  const oauthApps = new OAuthAppStore(d.db, d.box)
  const tokenClient = new TokenClient(d.providerTimeoutMs, d.transport)
  const flow = new AuthorizationFlow({
    publicUrl: d.publicUrl,
    workspaces: d.workspaces,
    workspaceSettings: d.workspaceSettings,
    states,
    oauthApps,
    workspaceLimit,
  })
  return {
    flow,
    keyPage: new KeyPage(flow, states, d.connections, workspaceLimit),
    addressLimits: {
      auth: new RateLimiter(d.settings.rateLimitPerMinute),
      keyPage: new RateLimiter(d.settings.rateLimitPerMinute),
    },
    oauthCallback: new OAuthCallback(flow, states, oauthApps, tokenClient, d.connections),
    oauthApps,
    tokenClient,
  }
}

/** Token refresh for the connection resolver (built before the resolver, which it then serves). */
export function createTokenRefresher(d: {
  readonly db: Db
  readonly box: SecretBox
  readonly store: ConnectionStore
  readonly providerTimeoutMs: number
  readonly transport: ProviderTransport
  /** The per-connection lease, shared with the connection updates that write credentials (ConnectionService). */
  readonly lock: RefreshLock
  readonly marginMs: number
  readonly waitMs: number
  readonly onChanged: (connectionId: string) => void
}): TokenRefresher {
  return new OAuthRefresher({
    store: d.store,
    oauthApps: new OAuthAppStore(d.db, d.box),
    tokens: new TokenClient(d.providerTimeoutMs, d.transport),
    lock: d.lock,
    marginMs: d.marginMs,
    waitMs: d.waitMs,
    onChanged: d.onChanged,
  })
}

/** The hook that revokes a connection's grant at the provider before the connection is removed. */
export function tokenRevoker(
  a: Authorization,
  store: ConnectionStore,
  onError: (err: unknown, connectionId: string) => void,
) {
  return revokeBeforeRemove({ store, oauthApps: a.oauthApps, tokens: a.tokenClient, onError })
}

/**
 * Pins the token and revoke addresses on connections created from tokens the workspace already holds,
 * as the OAuth callback does for the ones it creates: the app's addresses at creation time.
 */
export function oauthAddressPinner(apps: OAuthAppStore): CredentialsPinner {
  return async (workspaceId, integration, credentials) => {
    const spec = oauthSpecOf(integration)
    if (!spec || !holdsOAuthTokens(credentials)) return credentials
    const app = await apps.get(workspaceId, integration.type)
    return { ...credentials, ...pinnedAddresses(spec, app) }
  }
}

import type { Credentials, OAuth2Auth } from '../../integrations/types.js'
import type { OAuthApp } from '../oauth-apps.js'

/**
 * The token and revoke addresses a connection was authorized with, kept in its sealed credentials
 * (`token_url`, `revoke_url`). Refresh and revoke use these, never the workspace's current OAuth app: a
 * later change of the app's addresses applies to connections authorized afterwards, so changing it cannot
 * send existing connections' refresh tokens somewhere else.
 */
export function pinnedAddresses(
  spec: OAuth2Auth,
  app: Pick<OAuthApp, 'endpoints'> | undefined,
): { token_url: string; revoke_url?: string } {
  const revoke = app?.endpoints.revoke_url ?? spec.revokeUrl
  return { token_url: app?.endpoints.token_url ?? spec.tokenUrl, ...(revoke ? { revoke_url: revoke } : {}) }
}

/** Credentials holding OAuth tokens (not an API key of an integration that also offers OAuth). */
export function holdsOAuthTokens(c: Credentials): boolean {
  return Boolean(c.access_token || c.refresh_token)
}

/**
 * Where a connection's tokens are refreshed and revoked. Connections stored before addresses were pinned
 * fall back to the app's addresses, then the integration's.
 */
export function tokenAddresses(
  c: Credentials,
  spec: OAuth2Auth,
  app: Pick<OAuthApp, 'endpoints'> | undefined,
): { tokenUrl: string; revokeUrl?: string } {
  if (c.token_url) return { tokenUrl: c.token_url, ...(c.revoke_url ? { revokeUrl: c.revoke_url } : {}) }
  const legacy = pinnedAddresses(spec, app)
  return { tokenUrl: legacy.token_url, ...(legacy.revoke_url ? { revokeUrl: legacy.revoke_url } : {}) }
}

import { createHash } from 'node:crypto'
import type { Credentials, OAuth2Auth } from '../../integrations/types.js'
import type { OAuthApp } from '../oauth-apps.js'
import type { ClientCredentials } from './token-client.js'

/** The workspace app's client secret as a connection remembers it: the secret its addresses came with. */
const secretFingerprint = (secret: string) => createHash('sha256').update(secret).digest('base64url')

/**
 * The token and revoke addresses a connection was authorized with, kept in its sealed credentials
 * (`token_url`, `revoke_url`). Refresh and revoke use these, never the workspace's current OAuth app: a
 * later change of the app's addresses applies to connections authorized afterwards, so changing it cannot
 * send existing connections' refresh tokens somewhere else.
 */
export function pinnedAddresses(
  spec: OAuth2Auth,
  app: Pick<OAuthApp, 'endpoints' | 'clientSecret'> | undefined,
): { token_url: string; revoke_url?: string; app_secret_sha256?: string } {
  return {
    ...appAddresses(spec, app),
    // Which secret the app held with these addresses (oauthClientFor).
    ...(app ? { app_secret_sha256: secretFingerprint(app.clientSecret) } : {}),
  }
}

/** The token and revoke addresses the workspace's app names now, or the integration's own. */
function appAddresses(
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
  const legacy = appAddresses(spec, app)
  return { tokenUrl: legacy.token_url, ...(legacy.revoke_url ? { revokeUrl: legacy.revoke_url } : {}) }
}

/**
 * The OAuth client that refreshes or revokes a connection's tokens at its pinned address. An imported
 * connection may carry its own client; otherwise the workspace app's. The app's secret goes only where it
 * was given with: the address the app names now, or the pinned one when the app held this same secret as
 * the connection was authorized. A key holder who pointed the app at another token address (with a
 * made-up secret, for the connections authorized meanwhile) never receives the real secret re-entered
 * later; those connections are re-authorized instead.
 */
export function oauthClientFor(
  c: Credentials,
  spec: OAuth2Auth,
  app: OAuthApp | undefined,
  purpose: 'token' | 'revoke',
): ClientCredentials | undefined {
  const clientId = c.client_id ?? app?.clientId
  if (!clientId) return undefined
  const secret =
    c.client_secret ?? (app?.clientId === clientId ? appSecretFor(c, spec, app, purpose) : undefined)
  return {
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    ...(spec.tokenEndpointAuth ? { method: spec.tokenEndpointAuth } : {}),
  }
}

function appSecretFor(c: Credentials, spec: OAuth2Auth, app: OAuthApp, purpose: 'token' | 'revoke') {
  const pinned = tokenAddresses(c, spec, app)
  const current = appAddresses(spec, app)
  const sameAddress =
    purpose === 'token' ? pinned.tokenUrl === current.token_url : pinned.revokeUrl === current.revoke_url
  const sameSecret = c.app_secret_sha256 === secretFingerprint(app.clientSecret)
  return sameAddress || sameSecret ? app.clientSecret : undefined
}

import { oauthOf } from '../integrations/auth-methods.js'
import type { IntegrationDefinition, OAuth2Auth } from '../integrations/types.js'
import type { OAuthApp } from './oauth-apps.js'

/**
 * Provider quirks the authorize request needs beyond RFC 6749, keyed by the authorize host. Google issues
 * a refresh token only for `access_type=offline`, and only on first consent unless `prompt=consent`;
 * Lever wants the API it issues tokens for as `audience`.
 */
const AUTHORIZE_EXTRAS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'accounts.google.com': { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  // Lever issues tokens for its API only when the authorize request names it as the audience.
  'auth.lever.co': { audience: 'https://api.lever.co/v1/' },
}

export function oauthSpecOf(integration: IntegrationDefinition): OAuth2Auth | undefined {
  return oauthOf(integration)
}

export interface AuthorizeParams {
  readonly redirectUri: string
  readonly state: string
  readonly scopes: readonly string[]
  readonly codeChallenge?: string
}

/** The provider's authorize address for one request (the app's override, e.g. an emulator, wins). */
export function authorizeUrl(spec: OAuth2Auth, app: OAuthApp, p: AuthorizeParams): string {
  const url = new URL(app.endpoints.authorize_url ?? spec.authorizeUrl)
  const extras = AUTHORIZE_EXTRAS[new URL(spec.authorizeUrl).host] ?? {}
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: p.redirectUri,
    state: p.state,
    ...(p.scopes.length > 0 ? { scope: p.scopes.join(' ') } : {}),
    ...(p.codeChallenge ? { code_challenge: p.codeChallenge, code_challenge_method: 'S256' } : {}),
    ...extras,
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

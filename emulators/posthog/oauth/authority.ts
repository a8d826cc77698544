import { createHash, randomBytes } from 'node:crypto'

/**
 * PostHog's OAuth authorization server, emulated as strictly as PostHog runs it (django-oauth-toolkit):
 * registered clients with exact redirect URIs, PKCE S256 required, single-use codes bound to client,
 * redirect URI and challenge, `pha_` access tokens that expire, `phr_` refresh tokens that rotate on every
 * refresh (the old one is dead at once), and revocation. Its clock can be moved by tests
 * (PostHog/posthog@master:posthog/api/oauth/views.py, posthog/api/oauth/metadata.py).
 */

export interface PosthogOAuthClient {
  readonly clientId: string
  /** Absent for a public client, which authenticates with PKCE alone. */
  readonly clientSecret?: string
  readonly redirectUris: readonly string[]
  readonly name?: string
}

export interface OAuthGrant {
  readonly clientId: string
  readonly scopes: readonly string[]
  readonly expiresAt: number
}

interface CodeGrant {
  readonly clientId: string
  readonly scopes: readonly string[]
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly expiresAt: number
}

interface RefreshGrant {
  readonly clientId: string
  readonly scopes: readonly string[]
  /** The access token issued with it: rotating or revoking the refresh token ends it too. */
  readonly accessToken: string
}

export interface OAuthTokenBody {
  readonly access_token: string
  readonly token_type: 'Bearer'
  readonly expires_in: number
  readonly scope: string
  readonly refresh_token: string
}

/** An RFC 6749 section 5.2 error: status and `{error, error_description}`. */
export interface OAuthFailure {
  readonly status: 400 | 401
  readonly body: { readonly error: string; readonly error_description: string }
}

export type OAuthResult = { ok: true; body: OAuthTokenBody } | { ok: false; failure: OAuthFailure }

export type AccessCheck = { ok: true; grant: OAuthGrant } | { ok: false; reason: 'invalid' | 'expired' }

export interface PosthogOAuthOptions {
  readonly clients?: readonly PosthogOAuthClient[]
  /** Access token lifetime; an hour unless told otherwise. */
  readonly accessTokenTtlSeconds?: number
  readonly codeTtlSeconds?: number
}

/** The client the emulator knows unless told otherwise. */
export const DEFAULT_OAUTH_CLIENT: PosthogOAuthClient = {
  clientId: 'unigate-posthog-test-client',
  clientSecret: 'unigate-posthog-test-secret',
  redirectUris: ['http://127.0.0.1/oauth/callback'],
  name: 'Unigate test app',
}

const fail = (status: 400 | 401, error: string, description: string): OAuthResult => ({
  ok: false,
  failure: { status, body: { error, error_description: description } },
})

const opaque = (prefix: string): string => `${prefix}${randomBytes(30).toString('base64url')}`

export type Form = Readonly<Record<string, string | undefined>>

export class PosthogOAuthAuthority {
  private readonly clients = new Map<string, PosthogOAuthClient>()
  private readonly codes = new Map<string, CodeGrant>()
  private readonly access = new Map<string, OAuthGrant>()
  private readonly refresh = new Map<string, RefreshGrant>()
  private offsetMs = 0
  readonly accessTokenTtlSeconds: number
  private readonly codeTtlSeconds: number

  constructor(options: PosthogOAuthOptions = {}) {
    for (const c of options.clients ?? [DEFAULT_OAUTH_CLIENT]) this.clients.set(c.clientId, c)
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 3600
    this.codeTtlSeconds = options.codeTtlSeconds ?? 60
  }

  now(): number {
    return Date.now() + this.offsetMs
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000
  }

  client(clientId: string): PosthogOAuthClient | undefined {
    return this.clients.get(clientId)
  }

  registerClient(client: PosthogOAuthClient): void {
    this.clients.set(client.clientId, client)
  }

  /** What the consent page hands back on Allow; the caller checked client and redirect URI already. */
  issueCode(g: { clientId: string; scopes: readonly string[]; redirectUri: string; codeChallenge: string }) {
    const code = randomBytes(24).toString('base64url')
    this.codes.set(code, { ...g, scopes: [...g.scopes], expiresAt: this.now() + this.codeTtlSeconds * 1000 })
    return code
  }

  /** Tokens as a finished consent would give them, for tests that start from held credentials. */
  issueTokens(g: { clientId?: string; scopes: readonly string[] }): OAuthTokenBody {
    return this.mint(g.clientId ?? DEFAULT_OAUTH_CLIENT.clientId, g.scopes)
  }

  private mint(clientId: string, scopes: readonly string[]): OAuthTokenBody {
    const accessToken = opaque('pha_')
    const refreshToken = opaque('phr_')
    this.access.set(accessToken, {
      clientId,
      scopes: [...scopes],
      expiresAt: this.now() + this.accessTokenTtlSeconds * 1000,
    })
    this.refresh.set(refreshToken, { clientId, scopes: [...scopes], accessToken })
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.accessTokenTtlSeconds,
      scope: scopes.join(' '),
      refresh_token: refreshToken,
    }
  }

  /** Client authentication (RFC 6749 2.3.1): a confidential client must present its secret. */
  private authenticate(f: Form): PosthogOAuthClient | OAuthResult {
    if (!f.client_id) return fail(401, 'invalid_client', 'Client authentication failed.')
    const client = this.clients.get(f.client_id)
    if (!client) return fail(401, 'invalid_client', 'Client authentication failed.')
    if (client.clientSecret !== undefined && f.client_secret !== client.clientSecret)
      return fail(401, 'invalid_client', 'Client authentication failed.')
    return client
  }

  /** `grant_type=authorization_code`: single use, same client, same redirect_uri, the PKCE verifier. */
  exchangeCode(f: Form): OAuthResult {
    if (!f.code) return fail(400, 'invalid_request', 'Missing code parameter.')
    if (!f.redirect_uri) return fail(400, 'invalid_request', 'Missing redirect_uri parameter.')
    if (!f.code_verifier) return fail(400, 'invalid_request', 'Code verifier required.')
    const client = this.authenticate(f)
    if ('ok' in client) return client
    const grant = this.codes.get(f.code)
    // Single use: spent before any other check, so a failed attempt cannot be retried either.
    this.codes.delete(f.code)
    if (!grant || grant.expiresAt <= this.now() || grant.clientId !== client.clientId)
      return fail(400, 'invalid_grant', 'Invalid authorization code.')
    if (f.redirect_uri !== grant.redirectUri) return fail(400, 'invalid_grant', 'Mismatching redirect URI.')
    const derived = createHash('sha256').update(f.code_verifier).digest('base64url')
    if (derived !== grant.codeChallenge) return fail(400, 'invalid_grant', 'Code verifier does not match.')
    return { ok: true, body: this.mint(client.clientId, grant.scopes) }
  }

  /** `grant_type=refresh_token`: a new pair; the presented refresh token and its access token end. */
  refreshTokens(f: Form): OAuthResult {
    if (!f.refresh_token) return fail(400, 'invalid_request', 'Missing refresh_token parameter.')
    const client = this.authenticate(f)
    if ('ok' in client) return client
    const grant = this.refresh.get(f.refresh_token)
    if (!grant || grant.clientId !== client.clientId)
      return fail(400, 'invalid_grant', 'Invalid refresh token.')
    const wanted = f.scope?.split(' ').filter(Boolean)
    if (wanted?.some((s) => !grant.scopes.includes(s)))
      return fail(400, 'invalid_scope', 'The requested scope exceeds the scope granted.')
    this.refresh.delete(f.refresh_token)
    this.access.delete(grant.accessToken)
    return { ok: true, body: this.mint(client.clientId, wanted ?? grant.scopes) }
  }

  /**
   * RFC 7009: either token of a pair ends both. Answers the failure when the client cannot authenticate;
   * an unknown token is not an error (the RFC says to answer 200).
   */
  revoke(f: Form): OAuthFailure | undefined {
    const client = this.authenticate(f)
    if ('ok' in client) return client.ok ? undefined : client.failure
    const token = f.token ?? ''
    const refresh = this.refresh.get(token)
    if (refresh && refresh.clientId === client.clientId) {
      this.refresh.delete(token)
      this.access.delete(refresh.accessToken)
    }
    const access = this.access.get(token)
    if (access && access.clientId === client.clientId) {
      this.access.delete(token)
      for (const [t, r] of this.refresh) if (r.accessToken === token) this.refresh.delete(t)
    }
    return undefined
  }

  /** Whether an access token would be accepted right now, and with which scopes. */
  check(token: string): AccessCheck {
    const grant = this.access.get(token)
    if (!grant) return { ok: false, reason: 'invalid' }
    if (grant.expiresAt <= this.now()) return { ok: false, reason: 'expired' }
    return { ok: true, grant }
  }

  /** Whether a refresh token is still live (tests check rotation with it). */
  refreshTokenLive(token: string): boolean {
    return this.refresh.has(token)
  }
}

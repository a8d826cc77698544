import { createHash, randomBytes } from 'node:crypto'

/**
 * Google's OAuth2 token authority, emulated: clients, authorization codes, access and refresh tokens,
 * expiry on a clock that tests can move. One authority can back several emulators (GA4, YouTube), so a
 * token issued by the emulated token endpoint works against every emulated Google API, as at Google.
 */

export interface OAuthClient {
  readonly clientId: string
  readonly clientSecret: string
  readonly redirectUris: readonly string[]
}

export interface AccessGrant {
  readonly clientId: string
  readonly subject: string
  readonly scopes: readonly string[]
  readonly expiresAt: number
}

interface CodeGrant {
  readonly clientId: string
  readonly subject: string
  readonly scopes: readonly string[]
  readonly redirectUri: string
  readonly codeChallenge?: string
  readonly codeChallengeMethod?: 'S256' | 'plain'
  readonly expiresAt: number
}

interface RefreshGrant {
  readonly clientId: string
  readonly subject: string
  readonly scopes: readonly string[]
  readonly expiresAt?: number
  readonly accessTokens: Set<string>
}

export interface TokenSuccess {
  readonly access_token: string
  readonly expires_in: number
  readonly refresh_token?: string
  readonly scope: string
  readonly token_type: 'Bearer'
}

/** An OAuth error as Google's token endpoint answers it: status and `{error, error_description}`. */
export interface TokenFailure {
  readonly status: 400 | 401
  readonly body: { readonly error: string; readonly error_description: string }
}

export type TokenResult = { ok: true; body: TokenSuccess } | { ok: false; failure: TokenFailure }

export type TokenCheck =
  | { ok: true; grant: AccessGrant }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' }

export interface TokenAuthorityOptions {
  readonly clients?: readonly OAuthClient[]
  /**
   * Google's access tokens live an hour ("expires_in": the remaining lifetime in seconds, 3599 as issued;
   * https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code).
   */
  readonly accessTokenTtlSeconds?: number
  /**
   * Refresh tokens of apps in "Testing" status expire after 7 days; published apps' do not expire
   * (https://developers.google.com/identity/protocols/oauth2#expiration).
   */
  readonly refreshTokenTtlSeconds?: number
  /** Authorization codes are short-lived and single-use; Google gives no lifetime, 600 s is the emulator's. */
  readonly codeTtlSeconds?: number
}

/** The client the emulators know unless told otherwise. */
export const DEFAULT_CLIENT: OAuthClient = {
  clientId: 'unigate-test.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-unigate-test-secret',
  redirectUris: ['http://127.0.0.1/oauth/callback'],
}

const fail = (status: 400 | 401, error: string, description: string): TokenResult => ({
  ok: false,
  failure: { status, body: { error, error_description: description } },
})

function opaque(prefix: string, bytes: number): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`
}

export class GoogleTokenAuthority {
  private readonly clients = new Map<string, OAuthClient>()
  private readonly codes = new Map<string, CodeGrant>()
  private readonly access = new Map<string, AccessGrant & { refreshToken?: string }>()
  private readonly refresh = new Map<string, RefreshGrant>()
  private offsetMs = 0
  readonly accessTokenTtlSeconds: number
  private readonly refreshTokenTtlSeconds?: number
  private readonly codeTtlSeconds: number

  constructor(options: TokenAuthorityOptions = {}) {
    for (const c of options.clients ?? [DEFAULT_CLIENT]) this.clients.set(c.clientId, c)
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 3599
    this.refreshTokenTtlSeconds = options.refreshTokenTtlSeconds
    this.codeTtlSeconds = options.codeTtlSeconds ?? 600
  }

  /** The authority's clock: real time plus whatever tests advanced it by. */
  now(): number {
    return Date.now() + this.offsetMs
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000
  }

  /** A registered client (the consent screen checks client_id and redirect_uri against it). */
  client(clientId: string): OAuthClient | undefined {
    return this.clients.get(clientId)
  }

  registerClient(client: OAuthClient): void {
    this.clients.set(client.clientId, client)
  }

  /** What the consent screen would hand back: a code for these scopes, bound to the client and redirect. */
  issueCode(grant: {
    clientId?: string
    scopes: readonly string[]
    subject?: string
    redirectUri?: string
    codeChallenge?: string
    codeChallengeMethod?: 'S256' | 'plain'
  }): string {
    const client = this.clients.get(grant.clientId ?? DEFAULT_CLIENT.clientId)
    if (!client) throw new Error(`unknown OAuth client ${grant.clientId}`)
    const redirectUri = grant.redirectUri ?? client.redirectUris[0] ?? ''
    const code = opaque('4/0A', 48)
    this.codes.set(code, {
      clientId: client.clientId,
      subject: grant.subject ?? 'user-1',
      scopes: [...grant.scopes],
      redirectUri,
      ...(grant.codeChallenge ? { codeChallenge: grant.codeChallenge } : {}),
      ...(grant.codeChallengeMethod ? { codeChallengeMethod: grant.codeChallengeMethod } : {}),
      expiresAt: this.now() + this.codeTtlSeconds * 1000,
    })
    return code
  }

  /** Tokens as a finished consent would give them, for tests that start from held credentials. */
  issueTokens(grant: { clientId?: string; scopes: readonly string[]; subject?: string }): TokenSuccess {
    const clientId = grant.clientId ?? DEFAULT_CLIENT.clientId
    return this.mint(clientId, grant.subject ?? 'user-1', grant.scopes, true)
  }

  private mint(
    clientId: string,
    subject: string,
    scopes: readonly string[],
    withRefresh: boolean,
  ): TokenSuccess {
    const accessToken = opaque('ya29.', 96)
    const expiresAt = this.now() + this.accessTokenTtlSeconds * 1000
    let refreshToken: string | undefined
    if (withRefresh) {
      refreshToken = opaque('1//0', 72)
      this.refresh.set(refreshToken, {
        clientId,
        subject,
        scopes: [...scopes],
        ...(this.refreshTokenTtlSeconds
          ? { expiresAt: this.now() + this.refreshTokenTtlSeconds * 1000 }
          : {}),
        accessTokens: new Set([accessToken]),
      })
    }
    this.access.set(accessToken, { clientId, subject, scopes: [...scopes], expiresAt, refreshToken })
    return {
      access_token: accessToken,
      expires_in: this.accessTokenTtlSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: scopes.join(' '),
      token_type: 'Bearer',
    }
  }

  private authenticateClient(
    clientId: string | undefined,
    secret: string | undefined,
  ): TokenResult | OAuthClient {
    if (!clientId) return fail(400, 'invalid_request', 'Could not determine client ID from request.')
    const client = this.clients.get(clientId)
    if (!client) return fail(401, 'invalid_client', 'The OAuth client was not found.')
    if (secret !== client.clientSecret) return fail(401, 'invalid_client', 'Unauthorized')
    return client
  }

  /** `grant_type=authorization_code`. */
  exchangeCode(p: Readonly<Record<string, string | undefined>>): TokenResult {
    if (!p.code) return fail(400, 'invalid_request', 'Missing required parameter: code')
    const client = this.authenticateClient(p.client_id, p.client_secret)
    if ('ok' in client) return client
    const grant = this.codes.get(p.code)
    // Single use: a replayed code is as dead as an unknown one.
    this.codes.delete(p.code)
    if (!grant || grant.expiresAt <= this.now() || grant.clientId !== client.clientId) {
      return fail(400, 'invalid_grant', 'Malformed auth code.')
    }
    if (!p.redirect_uri) return fail(400, 'invalid_request', 'Missing parameter: redirect_uri')
    if (p.redirect_uri !== grant.redirectUri) return fail(400, 'redirect_uri_mismatch', 'Bad Request')
    if (grant.codeChallenge) {
      if (!p.code_verifier) return fail(400, 'invalid_grant', 'Missing code verifier.')
      const derived =
        grant.codeChallengeMethod === 'plain'
          ? p.code_verifier
          : createHash('sha256').update(p.code_verifier).digest('base64url')
      if (derived !== grant.codeChallenge) return fail(400, 'invalid_grant', 'Invalid code verifier.')
    }
    return { ok: true, body: this.mint(client.clientId, grant.subject, grant.scopes, true) }
  }

  /** `grant_type=refresh_token`: a new access token; the refresh token stays the same (Google's behaviour). */
  refreshAccess(p: Readonly<Record<string, string | undefined>>): TokenResult {
    if (!p.refresh_token) return fail(400, 'invalid_request', 'Missing required parameter: refresh_token')
    const client = this.authenticateClient(p.client_id, p.client_secret)
    if ('ok' in client) return client
    const grant = this.refresh.get(p.refresh_token)
    if (!grant || (grant.expiresAt !== undefined && grant.expiresAt <= this.now())) {
      return fail(400, 'invalid_grant', 'Token has been expired or revoked.')
    }
    if (grant.clientId !== client.clientId) return fail(400, 'unauthorized_client', 'Unauthorized')
    const minted = this.mint(client.clientId, grant.subject, grant.scopes, false)
    grant.accessTokens.add(minted.access_token)
    this.access.set(minted.access_token, {
      ...(this.access.get(minted.access_token) as AccessGrant),
      refreshToken: p.refresh_token,
    })
    return { ok: true, body: minted }
  }

  /**
   * Revoking either token ends the whole grant: "If the token is an access token and it has a
   * corresponding refresh token, the refresh token will also be revoked" (https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke).
   * Answers false for an unknown token.
   */
  revoke(token: string): boolean {
    const refresh = this.refresh.get(token)
    const refreshToken = refresh ? token : this.access.get(token)?.refreshToken
    if (!refresh && !this.access.has(token)) return false
    if (refreshToken) {
      for (const t of this.refresh.get(refreshToken)?.accessTokens ?? []) this.access.delete(t)
      this.refresh.delete(refreshToken)
    }
    this.access.delete(token)
    return true
  }

  /** Whether a bearer token would be accepted right now. */
  check(token: string | undefined): TokenCheck {
    if (!token) return { ok: false, reason: 'missing' }
    const grant = this.access.get(token)
    if (!grant) return { ok: false, reason: 'invalid' }
    if (grant.expiresAt <= this.now()) return { ok: false, reason: 'expired' }
    return { ok: true, grant }
  }
}

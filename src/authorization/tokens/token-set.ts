import type { Credentials } from '../../integrations/types.js'

/** A successful token endpoint answer (RFC 6749 section 5.1). */
export interface TokenSet {
  readonly access_token: string
  readonly refresh_token?: string
  readonly expires_in?: number
  readonly scope?: string
  readonly token_type?: string
  /** Extra string fields of the answer the integration keeps (`OAuth2Auth.tokenFields`). */
  readonly extra?: Readonly<Record<string, string>>
}

/**
 * Codes saying the grant is dead: RFC 6749's `invalid_grant`, and HubSpot's own code for a refresh token it
 * does not know (its token endpoint answers `{status: "BAD_REFRESH_TOKEN", message}`, not an RFC error:
 * HGData/mk-node-hubspot#64, supaglue-labs/supaglue#1935).
 */
const DEAD_GRANT_CODES: readonly string[] = ['invalid_grant', 'BAD_REFRESH_TOKEN']

/** RFC 6749 section 5.2's error codes, and the providers' own that this module knows. */
const REGISTERED_CODES: readonly string[] = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  ...DEAD_GRANT_CODES,
]

/** A token endpoint refusal (RFC 6749 section 5.2) or failure; `code` is the OAuth `error`. */
export class TokenEndpointError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description?: string,
  ) {
    super(description ? `${code}: ${description}` : code)
    this.name = 'TokenEndpointError'
  }

  /** The grant is dead (revoked, expired, already used): only a new authorization helps. */
  get isInvalidGrant(): boolean {
    return DEAD_GRANT_CODES.includes(this.code)
  }

  /**
   * What a page anyone can open may say of this failure: a registered code and the HTTP status, never the
   * endpoint's own words. The token endpoint is the workspace's OAuth app's, which may be an internal
   * address where the operator allows them; its `error_description` (or a made-up `error`) must not reach
   * the browser (DESIGN.md section 9: nothing unauthenticated echoes what an internal address answered).
   */
  get publicReason(): string {
    if (this.status === 0) return 'the token endpoint could not be reached'
    const code = REGISTERED_CODES.includes(this.code) ? `${this.code}, ` : ''
    return `${code}HTTP ${this.status}`
  }

  /** Worth trying again later: the provider is down, slow or rate limiting. */
  get isTransient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500
  }
}

/**
 * The longest token lifetime read from an answer: ten years, far past any provider's (an hour is usual;
 * HubSpot's refresh tokens do not expire, and it says so by giving none). A longer `expires_in` (`1e300`)
 * made an expiry past the last instant a Date can hold, whose toISOString threw: a refresh answered 500
 * through passthrough and lost the refresh token the endpoint had just rotated, and a callback answered 500.
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 365 * 24 * 60 * 60

/**
 * `expires_in` when it is a lifetime Unigate can keep (over 0, up to ten years), else undefined: as if none
 * was given. A lifetime of 0 (or `''`, which Number reads as 0) made a token due for refresh on every request,
 * and every request asked the token endpoint again.
 */
export function tokenLifetimeOf(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return undefined
  return seconds > 0 && seconds <= MAX_TOKEN_LIFETIME_SECONDS ? seconds : undefined
}

/** Reads a token endpoint answer; anything without an access token is a refusal. */
export function parseTokenResponse(status: number, body: unknown, keep: readonly string[] = []): TokenSet {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  if (status >= 200 && status < 300 && typeof b.access_token === 'string' && b.access_token !== '') {
    const expiresIn = tokenLifetimeOf(b.expires_in)
    const extra = Object.fromEntries(
      keep.filter((k) => typeof b[k] === 'string' && b[k] !== '').map((k) => [k, b[k] as string]),
    )
    return {
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
      access_token: b.access_token,
      ...(typeof b.refresh_token === 'string' && b.refresh_token !== ''
        ? { refresh_token: b.refresh_token }
        : {}),
      ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}),
      ...(typeof b.scope === 'string' ? { scope: b.scope } : {}),
      ...(typeof b.token_type === 'string' ? { token_type: b.token_type } : {}),
    }
  }
  // HubSpot puts its code in `status` and its explanation in `message`.
  const code =
    typeof b.error === 'string'
      ? b.error
      : status >= 400 && typeof b.status === 'string'
        ? b.status
        : status >= 200 && status < 300
          ? 'invalid_response'
          : `http_${status}`
  const description =
    typeof b.error_description === 'string'
      ? b.error_description
      : typeof b.message === 'string'
        ? b.message
        : undefined
  throw new TokenEndpointError(status, code, description)
}

/**
 * The connection's credentials after a token answer. A provider may omit the refresh token on refresh
 * (Google does; Nango #298 lost it this way): the one we had is kept then.
 */
export function credentialsFromTokens(tokens: TokenSet, previous: Credentials, now: Date): Credentials {
  const refresh = tokens.refresh_token ?? previous.refresh_token
  const { expiry_date: _e, expires_in: _i, refresh_error: _r, ...rest } = previous
  return {
    ...rest,
    access_token: tokens.access_token,
    ...(refresh ? { refresh_token: refresh } : {}),
    ...(tokens.expires_in !== undefined
      ? { expiry_date: new Date(now.getTime() + tokens.expires_in * 1000).toISOString() }
      : {}),
    ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}),
    ...tokens.extra,
  }
}

/** Milliseconds until the access token expires, or undefined when the provider gave no lifetime. */
export function msUntilExpiry(credentials: Credentials, now: number): number | undefined {
  if (!credentials.expiry_date) return undefined
  const at = Date.parse(credentials.expiry_date)
  return Number.isNaN(at) ? undefined : at - now
}

/**
 * The unified permissions the provider actually granted: a user may untick scopes on a granular consent
 * screen, and a connection must not claim what its token cannot do. Without a `scope` in the answer
 * (allowed by RFC 6749 when unchanged) everything requested was granted.
 */
export function grantedPermissions(
  permissions: readonly string[],
  map: Readonly<Record<string, readonly string[]>>,
  grantedScope: string | undefined,
): string[] {
  if (grantedScope === undefined) return [...permissions]
  const granted = new Set(grantedScope.split(/[\s,]+/).filter(Boolean))
  return permissions.filter((p) => (map[p] ?? []).every((s) => granted.has(s)))
}

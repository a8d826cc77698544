import type { FastifyRequest } from 'fastify'
import { GoogleApiError, type LegacyError } from './errors.js'
import type { AccessGrant, GoogleTokenAuthority } from './token-authority.js'

const REALM = 'Bearer realm="https://accounts.google.com/"'
const EXPECTED =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. ' +
  'See https://developers.google.com/identity/sign-in/web/devconsole-project.'

/**
 * Google takes the token from `Authorization: Bearer …` or the `access_token` query parameter (a standard
 * parameter of every discovery document, e.g. googleapis/google-api-go-client@6243c413:
 * youtubeanalytics/v2/youtubeanalytics-api.json `parameters.access_token`).
 */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    return m ? m[1] : ''
  }
  const q = (request.query as Record<string, unknown> | undefined)?.access_token
  return typeof q === 'string' ? q : undefined
}

export interface BearerCheck {
  readonly authority: GoogleTokenAuthority
  /** The API's service name, as Google puts it in ErrorInfo metadata. */
  readonly service: string
  /** The YouTube APIs still add the legacy `errors[]` list to their error bodies. */
  readonly legacyErrors?: boolean
}

function errorInfo(reason: string, service: string) {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain: 'googleapis.com',
    metadata: { service },
  }
}

/**
 * Checks the request's access token the way Google's front end does: a missing, unknown, revoked or
 * expired token is a 401 UNAUTHENTICATED; a valid one without any of `scopes` is a 403 PERMISSION_DENIED
 * "Request had insufficient authentication scopes." (https://developers.google.com/analytics/devguides/reporting/data/v1/errors),
 * with an ErrorInfo detail (https://google.aip.dev/193) and a `WWW-Authenticate` challenge as RFC 6750
 * §3 defines (error="invalid_token" / "insufficient_scope"). The ErrorInfo reasons and the 401 wording are
 * as Google sends them; the docs do not list them.
 */
export function requireGrant(
  check: BearerCheck,
  request: FastifyRequest,
  scopes: readonly string[],
): AccessGrant {
  const token = bearerOf(request)
  const result = check.authority.check(token)
  if (!result.ok) {
    const missing = result.reason === 'missing'
    const legacy: LegacyError[] = [
      {
        message: missing ? 'Login Required.' : 'Invalid Credentials',
        domain: 'global',
        reason: missing ? 'required' : 'authError',
        location: 'Authorization',
        locationType: 'header',
      },
    ]
    throw new GoogleApiError(
      401,
      missing
        ? `Request is missing required authentication credential. ${EXPECTED}`
        : `Request had invalid authentication credentials. ${EXPECTED}`,
      {
        status: 'UNAUTHENTICATED',
        ...(check.legacyErrors ? { errors: legacy } : {}),
        details: [
          errorInfo(
            missing
              ? 'CREDENTIALS_MISSING'
              : result.reason === 'expired'
                ? 'ACCESS_TOKEN_EXPIRED'
                : 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
            check.service,
          ),
        ],
      },
      { 'www-authenticate': missing ? REALM : `${REALM}, error="invalid_token"` },
    )
  }
  if (scopes.length > 0 && !scopes.some((s) => result.grant.scopes.includes(s))) {
    throw new GoogleApiError(
      403,
      'Request had insufficient authentication scopes.',
      {
        status: 'PERMISSION_DENIED',
        ...(check.legacyErrors
          ? {
              errors: [
                { message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' },
              ],
            }
          : {}),
        details: [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', check.service)],
      },
      { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scopes.join(' ')}"` },
    )
  }
  return result.grant
}

import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { RATE_WINDOW_MS, TOKEN_LIFETIME_MS } from './constants.js'
import { forbidden, GreenhouseHttpError, oauthError, rateLimitHeaders, unauthorized } from './errors.js'
import type { GreenhouseState } from './state.js'

const clientOf = new WeakMap<FastifyRequest, string>()

/** The client id whose token authenticated a request (set by the auth hook). */
export function requestClient(request: FastifyRequest): string {
  return clientOf.get(request) ?? ''
}

function basicPair(header: string | undefined): [string, string] | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)]
}

/**
 * POST /token, the client credentials flow of https://harvestdocs.greenhouse.io/docs/authentication
 * ("Step 2: Generate an access token"): HTTP Basic `client_id:client_secret`, an
 * `application/x-www-form-urlencoded` body with `grant_type=client_credentials` and `sub=<user_id>`.
 *
 * The answer is `{access_token, token_type: "Bearer", expires_in}` (public v3 clients require `expires_in`
 * and treat an absolute `expires_at` as the legacy form; the generate-token reference was not readable to
 * us). ASSUMPTIONS: refusals are RFC 6749 section 5.2 bodies (`invalid_client` 401,
 * `unsupported_grant_type`/`invalid_request` 400); `sub`, when given, must be a numeric user id ("sub should
 * be the numeric user_id of a user", ibid.).
 */
export function registerTokenEndpoint(app: FastifyInstance, state: GreenhouseState): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  )
  app.post('/token', async (request) => {
    const pair = basicPair(request.headers.authorization)
    const client = pair && state.clients.get(pair[0])
    if (!pair || !client || client.secret !== pair[1]) throw oauthError(401, 'invalid_client')
    if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      throw oauthError(400, 'invalid_request')
    const form = (request.body ?? {}) as Record<string, string>
    if (form.grant_type !== 'client_credentials') throw oauthError(400, 'unsupported_grant_type')
    if (form.sub !== undefined && !/^\d+$/.test(form.sub)) throw oauthError(400, 'invalid_request')
    const token = randomBytes(24).toString('base64url')
    const expiresAt = Date.now() + TOKEN_LIFETIME_MS
    state.tokens.set(token, { clientId: pair[0], expiresAt })
    return { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_MS / 1000 }
  })
}

/**
 * Auth, scopes, then the per-credential rate limit, on every `/v3/` call:
 * - "Call Harvest v3 endpoints with Authorization: Bearer <<ACCESS_TOKEN>>"
 *   (https://harvestdocs.greenhouse.io/docs/authentication); a missing, unknown or expired token is 401;
 * - a credential has the scopes configured for it (ibid., Step 1: "configure the scopes your integration
 *   needs"); a route outside them is 403 ("missing OAuth scope or authorizing user is not a Site Admin",
 *   airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, error_handler);
 * - rate limit: see constants.ts.
 */
export function installGreenhouseAuth(app: FastifyInstance, state: GreenhouseState): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/v3/')) return
    const match = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')
    const token = match ? state.tokens.get(match[1] as string) : undefined
    const client = token && state.clients.get(token.clientId)
    if (!token || !client || token.expiresAt <= Date.now()) throw unauthorized()
    const scope = scopeOf(request)
    if (!client.scopes.has(scope)) throw forbidden(`The access token is missing the scope ${scope}`)
    const now = Date.now()
    const start = Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS
    const window = state.windows.get(token.clientId)
    const current = window && window.start === start ? window : { start, count: 0 }
    current.count += 1
    state.windows.set(token.clientId, current)
    if (current.count > state.rateLimit) {
      const headers = rateLimitHeaders(state.rateLimit, start + RATE_WINDOW_MS, now)
      throw new GreenhouseHttpError(429, 'Rate limit exceeded', { message: 'Rate limit exceeded' }, headers)
    }
    reply.headers({
      'x-ratelimit-limit': String(state.rateLimit),
      'x-ratelimit-remaining': String(state.rateLimit - current.count),
    })
    clientOf.set(request, token.clientId)
  })
}

/** The scope a route needs: `harvest:<resource>:list` for a list. */
function scopeOf(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? ''
  const names: Record<string, string> = {
    '/v3/applications': 'harvest:applications:list',
    '/v3/offers': 'harvest:offers:list',
    '/v3/sources': 'harvest:sources:list',
    '/v3/rejection_reasons': 'harvest:rejection_reasons:list',
  }
  return names[route] ?? route
}

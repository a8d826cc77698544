import type { FastifyInstance, FastifyRequest } from 'fastify'
import { RATE_WINDOW_MS } from './constants.js'
import { forbidden, GreenhouseHttpError, rateLimitHeaders, unauthorized } from './errors.js'
import type { GreenhouseState } from './state.js'

const keyOf = new WeakMap<FastifyRequest, string>()

/** The Harvest API key a request authenticated with (set by the auth hook). */
export function requestKey(request: FastifyRequest): string {
  return keyOf.get(request) ?? ''
}

/**
 * "Harvest uses Basic Auth over HTTPS for authentication. The username is your Greenhouse API token and the
 * password should be blank. Unauthenticated requests will return an HTTP 401 response."
 * (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Authentication). What a
 * non-blank password does is not documented: it is ignored here.
 */
function basicUsername(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? undefined : decoded.slice(0, colon)
}

/**
 * Auth, then the per-key rate limit, on every `/v1/` call:
 * - a key grants only the endpoints chosen for it in the Dev Center; one without the permission is 401
 *   ("Ensure you're using a valid Harvest API key with the correct permissions", grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Errors);
 * - a GET with a body is 403 ("ensure that you're not supplying body information in your GET calls", ibid.);
 * - every answer carries X-RateLimit-Limit and X-RateLimit-Remaining; past the limit per 10 seconds, 429 with
 *   X-RateLimit-Reset and Retry-After (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Rate limiting).
 */
export function installGreenhouseAuth(app: FastifyInstance, state: GreenhouseState): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/v1/')) return
    const key = basicUsername(request.headers.authorization)
    const grants = key === undefined ? undefined : state.keys.get(key)
    if (key === undefined || grants === undefined) throw unauthorized()
    const endpoint = endpointOf(request)
    if (grants !== 'all' && !grants.has(endpoint)) throw unauthorized()
    if (request.method === 'GET' && Number(request.headers['content-length'] ?? 0) > 0) {
      throw forbidden('GET requests must not carry a body')
    }
    const now = Date.now()
    const start = Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS
    const window = state.windows.get(key)
    const current = window && window.start === start ? window : { start, count: 0 }
    current.count += 1
    state.windows.set(key, current)
    if (current.count > state.rateLimit) {
      const headers = rateLimitHeaders(state.rateLimit, start + RATE_WINDOW_MS, now)
      throw new GreenhouseHttpError(429, 'Rate limit exceeded', { message: 'Rate limit exceeded' }, headers)
    }
    reply.headers({
      'x-ratelimit-limit': String(state.rateLimit),
      'x-ratelimit-remaining': String(state.rateLimit - current.count),
    })
    keyOf.set(request, key)
  })
}

/** The Dev Center permission a route needs, named after the docs' sections ("GET: List Applications"). */
function endpointOf(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? ''
  const names: Record<string, string> = {
    '/v1/applications': 'applications.list',
    '/v1/applications/:id': 'applications.get',
    '/v1/applications/:id/offers': 'offers.list_for_application',
    '/v1/candidates/:id': 'candidates.get',
  }
  return names[route] ?? route
}

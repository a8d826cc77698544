import type { FastifyInstance, FastifyRequest } from 'fastify'
import { drfError, PosthogHttpError } from './errors.js'
import { checkOAuthBearer, isOAuthAccessToken, type PosthogOAuthAuthority } from './oauth/index.js'
import type { PosthogState } from './state.js'

/**
 * Where PostHog looks for a personal API key, in its order: the Authorization header, then the query string
 * (PostHog/posthog@master:posthog/auth.py `PersonalAPIKeyAuthentication.find_key_with_source`).
 */
function findKey(request: FastifyRequest): { key: string; source: string } | undefined {
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S.+)$/.exec(header)
    if (match) return { key: (match[1] as string).trim(), source: 'Authorization header' }
  }
  const query = request.query as Record<string, unknown>
  if (typeof query.personal_api_key === 'string')
    return { key: query.personal_api_key, source: 'query string' }
  return undefined
}

/**
 * Private endpoints (`/api/...`) need a personal API key or, with `oauth`, an OAuth access token in the
 * Authorization header (scopes enforced); the refusals are PostHog's own: DRF's `NotAuthenticated` when no key
 * is given, `AuthenticationFailed("Personal API key found in request … is invalid.")` for an unknown one
 * (posthog/auth.py), both 401 in drf-exceptions-hog's body.
 */
export function installPersonalKeyAuth(
  app: FastifyInstance,
  state: PosthogState,
  oauth?: PosthogOAuthAuthority,
): void {
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/api/')) return
    const found = findKey(request)
    if (!found) {
      throw new PosthogHttpError(
        401,
        drfError(
          'authentication_error',
          'not_authenticated',
          'Authentication credentials were not provided.',
        ),
        { 'www-authenticate': 'Bearer' },
      )
    }
    if (oauth && found.source === 'Authorization header' && isOAuthAccessToken(found.key)) {
      checkOAuthBearer(oauth, request, found.key)
      return
    }
    if (!state.apiKeys.has(found.key)) {
      throw new PosthogHttpError(
        401,
        drfError(
          'authentication_error',
          'authentication_failed',
          `Personal API key found in request ${found.source} is invalid.`,
        ),
        { 'www-authenticate': 'Bearer' },
      )
    }
  })
}

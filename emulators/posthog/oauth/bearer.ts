import type { FastifyRequest } from 'fastify'
import { drfError, PosthogHttpError } from '../errors.js'
import type { PosthogOAuthAuthority } from './authority.js'
import { grantsScope, requiredScope } from './scopes.js'

/** OAuth access tokens carry PostHog's `pha_` prefix; anything else is looked up as a personal key. */
export function isOAuthAccessToken(token: string): boolean {
  return token.startsWith('pha_')
}

/**
 * Checks an OAuth access token on a private API call: unknown, revoked or expired is PostHog's 401, a
 * token without the endpoint's scope is its 403 permission_denied (PostHog/posthog@master:posthog/auth.py,
 * posthog/permissions.py `APIScopePermission`).
 */
export function checkOAuthBearer(
  authority: PosthogOAuthAuthority,
  request: FastifyRequest,
  token: string,
): void {
  const result = authority.check(token)
  if (!result.ok) {
    throw new PosthogHttpError(
      401,
      drfError(
        'authentication_error',
        'authentication_failed',
        result.reason === 'expired' ? 'Access token has expired.' : 'Invalid access token.',
      ),
      { 'www-authenticate': 'Bearer' },
    )
  }
  const path = (request.raw.url ?? request.url).split('?')[0]!
  const needed = requiredScope(request.method, path)
  if (!needed) {
    throw new PosthogHttpError(
      403,
      drfError(
        'authentication_error',
        'permission_denied',
        'This action does not support OAuth access token access.',
      ),
    )
  }
  if (!grantsScope(result.grant.scopes, needed)) {
    throw new PosthogHttpError(
      403,
      drfError('authentication_error', 'permission_denied', `API key missing required scope '${needed}'`),
    )
  }
}

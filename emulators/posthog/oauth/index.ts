import type { FastifyInstance } from 'fastify'
import type { PosthogOAuthAuthority } from './authority.js'
import { registerConsentRoutes } from './consent.js'
import { registerTokenRoutes } from './token-routes.js'

export {
  DEFAULT_OAUTH_CLIENT,
  type OAuthTokenBody,
  PosthogOAuthAuthority,
  type PosthogOAuthClient,
  type PosthogOAuthOptions,
} from './authority.js'
export { checkOAuthBearer, isOAuthAccessToken } from './bearer.js'
export { POSTHOG_AUTHORIZE_PATH } from './consent.js'
export { POSTHOG_OAUTH_CONTROL, POSTHOG_REVOKE_PATH, POSTHOG_TOKEN_PATH } from './token-routes.js'

/** PostHog's OAuth authorization server on the emulator's origin, as PostHog serves it on its own. */
export function registerPosthogOAuth(app: FastifyInstance, authority: PosthogOAuthAuthority): void {
  registerConsentRoutes(app, authority)
  registerTokenRoutes(app, authority)
}

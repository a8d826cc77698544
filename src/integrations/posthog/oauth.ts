import type { AuthField, OAuth2Auth } from '../types.js'

/**
 * PostHog's OAuth (providers.md 2.1): authorization code with PKCE S256, refresh tokens that rotate on
 * every use. US Cloud by default; an EU or self-hosted workspace points its OAuth app's addresses (and
 * `api_url`) at its own host, since a token works only on the host that issued it.
 */
export const POSTHOG_AUTHORIZE_URL = 'https://us.posthog.com/oauth/authorize/'
export const POSTHOG_TOKEN_URL = 'https://us.posthog.com/oauth/token/'
export const POSTHOG_REVOKE_URL = 'https://us.posthog.com/oauth/revoke/'

const TOKEN_FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'OAuth access token',
    secret: true,
    required: true,
    description: 'A PostHog OAuth access token (pha_…), used instead of a personal API key',
  },
  {
    name: 'refresh_token',
    label: 'OAuth refresh token',
    secret: true,
    required: false,
    description: 'The refresh token (phr_…) issued with it; PostHog replaces it on every refresh',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The PostHog OAuth app the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The OAuth app's secret (needed to refresh the tokens of a confidential app)",
  },
]

/**
 * Each unified permission's PostHog scopes: those of every endpoint its handlers call. Visitors' slow
 * totals run a HogQL query; sending events reads the project for its capture key. Native event webhooks
 * create (and remove) a CDP webhook destination, a hog function: that write is the `webhook` permission's
 * alone, so granting only event reads asks for no write scope.
 */
export const POSTHOG_SCOPES: OAuth2Auth['scopes'] = {
  analytics_property_read: ['project:read'],
  analytics_property_write: ['project:write'],
  analytics_event_read: ['query:read'],
  analytics_event_write: ['project:read'],
  analytics_session_read: ['query:read'],
  analytics_visitor_read: ['person:read', 'query:read'],
  analytics_visitor_write: ['person:write'],
  analytics_report_read: ['query:read'],
  webhook: ['hog_function:read', 'hog_function:write'],
}

/** `extraFields` are those shared with the key method (region, api_url), described there. */
export function posthogOAuth2(extraFields: readonly AuthField[]): OAuth2Auth {
  return {
    kind: 'oauth2',
    fields: [...TOKEN_FIELDS, ...extraFields],
    authorizeUrl: POSTHOG_AUTHORIZE_URL,
    tokenUrl: POSTHOG_TOKEN_URL,
    revokeUrl: POSTHOG_REVOKE_URL,
    scopes: POSTHOG_SCOPES,
    // Verification reads /api/users/@me/ (user:read); OpenID identity comes with every PostHog grant.
    alwaysScopes: ['openid', 'profile', 'email', 'user:read'],
    // PostHog requires PKCE on every authorization.
    pkce: true,
  }
}

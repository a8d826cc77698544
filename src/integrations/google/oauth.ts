import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { AuthField, Credentials, OAuth2Auth } from '../types.js'

/** Google's OAuth2 endpoints, shared by every Google API (GA4, YouTube). */
export const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth'
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
export const GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke'

/** Exact scope strings (providers.md sections 1.1 and 8.1). */
export const GOOGLE_SCOPES = {
  analyticsReadonly: 'https://www.googleapis.com/auth/analytics.readonly',
  analytics: 'https://www.googleapis.com/auth/analytics',
  analyticsEdit: 'https://www.googleapis.com/auth/analytics.edit',
  ytAnalyticsReadonly: 'https://www.googleapis.com/auth/yt-analytics.readonly',
  ytAnalyticsMonetaryReadonly: 'https://www.googleapis.com/auth/yt-analytics-monetary.readonly',
  youtubeReadonly: 'https://www.googleapis.com/auth/youtube.readonly',
  youtube: 'https://www.googleapis.com/auth/youtube',
  youtubePartner: 'https://www.googleapis.com/auth/youtubepartner',
} as const

/** What every Google connection keeps: a bearer access token, and what refreshing it will need. */
export const GOOGLE_TOKEN_FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'Access token',
    secret: true,
    required: true,
    description: 'A Google OAuth2 access token (ya29...) granted the scopes this integration lists',
  },
  {
    name: 'refresh_token',
    label: 'Refresh token',
    secret: true,
    required: false,
    description: 'The refresh token issued with the access token (offline access), used to renew it',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The Google OAuth client the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The OAuth client's secret (needed to refresh the tokens)",
  },
  {
    name: 'api_url',
    label: 'API base address',
    secret: false,
    required: false,
    description: "Overrides Google's API hosts (an emulator or a proxy); leave empty for Google itself",
  },
]

/** A Google OAuth2 auth description; `extraFields` are the integration's own (GA4's Measurement Protocol). */
export function googleOAuth2(
  scopes: OAuth2Auth['scopes'],
  extraFields: readonly AuthField[] = [],
): OAuth2Auth {
  return {
    kind: 'oauth2',
    fields: [...GOOGLE_TOKEN_FIELDS, ...extraFields],
    authorizeUrl: GOOGLE_AUTHORIZE_URL,
    tokenUrl: GOOGLE_TOKEN_URL,
    revokeUrl: GOOGLE_REVOKE_URL,
    scopes,
    // Google supports PKCE for web clients too; it protects the code if a redirect leaks.
    pkce: true,
  }
}

export function googleAuthHeaders(credentials: Credentials): Record<string, string> {
  return credentials.access_token ? { authorization: `Bearer ${credentials.access_token}` } : {}
}

/** The connection's `api_url` without a trailing slash, when it overrides Google's hosts. */
export function apiUrlOverride(credentials: Credentials): string | undefined {
  const url = credentials.api_url?.trim()
  return url ? withoutTrailingSlashes(url) : undefined
}

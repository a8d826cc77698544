import type { AuthField, OAuth2Auth } from '../types.js'

/**
 * Lever's OAuth 2.0 (https://hire.lever.co/developer/documentation#authentication, "OAuth"): authorization
 * code at auth.lever.co, `audience` set to the API (added to the authorize request by
 * src/authorization/oauth-spec.ts), access tokens that last an hour and refresh tokens granted with
 * `offline_access`. Scopes are `<resource>:<read|write>:admin`.
 */
export const LEVER_AUTHORIZE_URL = 'https://auth.lever.co/authorize'
export const LEVER_TOKEN_URL = 'https://auth.lever.co/oauth/token'

const TOKEN_FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'OAuth access token',
    secret: true,
    required: true,
    description: 'A Lever OAuth access token, used instead of an API key',
  },
  {
    name: 'refresh_token',
    label: 'OAuth refresh token',
    secret: true,
    required: false,
    description: 'The refresh token issued with it (with the offline_access scope)',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The Lever OAuth app the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The OAuth app's secret (needed to refresh them)",
  },
]

/**
 * What each unified permission needs at Lever: reading opportunities, their offers, and the stages and archive
 * reasons that give them a status; `webhook` (native webhooks) manages webhooks, "webhooks:write:admin: Manage
 * all webhooks" (https://hire.lever.co/developer/documentation#scopes).
 */
export const LEVER_SCOPES: OAuth2Auth['scopes'] = {
  ats_application_read: [
    'opportunities:read:admin',
    'offers:read:admin',
    'stages:read:admin',
    'archive_reasons:read:admin',
  ],
  webhook: ['webhooks:write:admin'],
}

export function leverOAuth2(extraFields: readonly AuthField[]): OAuth2Auth {
  return {
    kind: 'oauth2',
    fields: [...TOKEN_FIELDS, ...extraFields],
    authorizeUrl: LEVER_AUTHORIZE_URL,
    tokenUrl: LEVER_TOKEN_URL,
    scopes: LEVER_SCOPES,
    // Verification lists opportunities; a refresh token needs offline_access.
    alwaysScopes: ['offline_access', 'opportunities:read:admin'],
    pkce: false,
  }
}

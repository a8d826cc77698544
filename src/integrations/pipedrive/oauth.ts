import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { AuthField, Credentials, OAuth2Auth } from '../types.js'

/**
 * Pipedrive's OAuth (https://pipedrive.readme.io/docs/marketplace-oauth-authorization;
 * https://developers.pipedrive.com/docs/api/v1/Oauth): `oauth.pipedrive.com/oauth/authorize` with
 * client_id, redirect_uri and state (the app's scopes are chosen in Developer Hub, not in the request),
 * then `POST /oauth/token` authenticated with HTTP Basic (client id and secret). The token answer names
 * the company's API address in `api_domain`.
 */
export const PIPEDRIVE_AUTHORIZE_URL = 'https://oauth.pipedrive.com/oauth/authorize'
export const PIPEDRIVE_TOKEN_URL = 'https://oauth.pipedrive.com/oauth/token'

const TOKEN_FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'OAuth access token',
    secret: true,
    required: true,
    description: 'A Pipedrive OAuth access token, used instead of an API token',
  },
  {
    name: 'refresh_token',
    label: 'OAuth refresh token',
    secret: true,
    required: false,
    description: 'The refresh token issued with it (access tokens expire after an hour)',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The Pipedrive app the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The app's client secret (needed to refresh the tokens)",
  },
]

export function pipedriveOAuth2(extraFields: readonly AuthField[]): OAuth2Auth {
  return {
    kind: 'oauth2',
    fields: [...TOKEN_FIELDS, ...extraFields],
    authorizeUrl: PIPEDRIVE_AUTHORIZE_URL,
    tokenUrl: PIPEDRIVE_TOKEN_URL,
    // The scopes (contacts:read, contacts:full) belong to the app, set in Developer Hub: none is requested.
    scopes: { crm_contact_read: [], crm_contact_write: [] },
    pkce: false,
    tokenEndpointAuth: 'client_secret_basic',
    tokenFields: ['api_domain'],
  }
}

const DEFAULT_API_URL = 'https://api.pipedrive.com'

/**
 * Where a connection's requests go: its `api_url` when set (an emulator, a company domain), else the
 * company domain an OAuth token answer named, when it is a Pipedrive domain, else api.pipedrive.com.
 */
export function pipedriveBaseUrl(c: Credentials): string {
  if (c.api_url) return withoutTrailingSlashes(c.api_url)
  if (c.api_domain && /^https:\/\/[a-z0-9-]+\.pipedrive\.com\/?$/.test(c.api_domain)) {
    return withoutTrailingSlashes(c.api_domain)
  }
  return DEFAULT_API_URL
}

import type { AuthField, OAuth2Auth } from '../types.js'

/**
 * Lever's OAuth 2.0 (https://hire.lever.co/developer/documentation#authentication, "OAuth"): authorization
 * code at auth.lever.co, `audience` set to the API (added to the authorize request by
 * src/authorization/oauth-spec.ts), access tokens that last an hour and refresh tokens granted with
 * `offline_access`. The other scopes are Lever's listed ones (#scopes): `<resource>:<read|write>:admin`, and
 * `confidential:access:admin` for confidential data.
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
 * What each unified permission needs at Lever, scope by scope as Lever lists them
 * (https://hire.lever.co/developer/documentation#scopes; Lever marks no endpoint with a scope, so each call
 * needs the scope of the resource it is documented under; emulators/lever/scopes.ts):
 * - `ats_application_read`: `GET /opportunities` and `/opportunities/:id` ("opportunities:read:admin: View all
 *   opportunities"), their offers (`offers:read:admin`), the stages and archive reasons that give them a status
 *   (`stages:read:admin`, `archive_reasons:read:admin`); every list asks `confidentiality=all`, and only
 *   "confidential:access:admin: Access all confidential data" shows the confidential ones; each opportunity is
 *   read with `expand=applications`, the data of "applications:read:admin: View all opportunity applications"
 *   (Lever does not say whether expanding them needs it: asked so the job of an application is never withheld).
 * - `webhook` (native webhooks, which also need `ats_application_read` to read back the opportunity a call
 *   names): `POST /webhooks` and `DELETE /webhooks/:id` ("webhooks:write:admin: Manage all webhooks"), and
 *   `GET /webhooks`, which the subscription check and the look-up after an unanswered subscribe read
 *   ("webhooks:read:admin: View all webhooks"; unlike the other write scopes, "Manage" does not say "View").
 */
export const LEVER_SCOPES: OAuth2Auth['scopes'] = {
  ats_application_read: [
    'opportunities:read:admin',
    'applications:read:admin',
    'offers:read:admin',
    'stages:read:admin',
    'archive_reasons:read:admin',
    'confidential:access:admin',
  ],
  webhook: ['webhooks:read:admin', 'webhooks:write:admin'],
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

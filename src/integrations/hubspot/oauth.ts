import type { AuthField, OAuth2Auth } from '../types.js'

/**
 * HubSpot's OAuth (https://developers.hubspot.com/docs/guides/apps/authentication/working-with-oauth;
 * HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/Auth/Oauth/Rollouts/155908/v1/oauth.json): authorization code, then `POST /oauth/v1/token`
 * (form, client id and secret in the body) for the tokens and for each refresh. Access tokens live
 * `expires_in` seconds (30 minutes); refresh tokens do not expire until the app is uninstalled.
 */
export const HUBSPOT_AUTHORIZE_URL = 'https://app.hubspot.com/oauth/authorize'
export const HUBSPOT_TOKEN_URL = 'https://api.hubapi.com/oauth/v1/token'

const TOKEN_FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'OAuth access token',
    secret: true,
    required: true,
    description: 'A HubSpot OAuth access token, used instead of a private app token',
  },
  {
    name: 'refresh_token',
    label: 'OAuth refresh token',
    secret: true,
    required: false,
    description: 'The refresh token issued with it (access tokens expire after 30 minutes)',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The HubSpot app the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The app's client secret (needed to refresh the tokens)",
  },
]

/**
 * Each unified permission's HubSpot scopes (contacts spec: `crm.objects.contacts.read` on reads,
 * `crm.objects.contacts.write` on writes and archiving). `oauth` is HubSpot's base scope every app asks for
 * (and what `GET /account-info/v3/details`, the verification call, needs).
 */
export const HUBSPOT_SCOPES: OAuth2Auth['scopes'] = {
  crm_contact_read: ['crm.objects.contacts.read'],
  crm_contact_write: ['crm.objects.contacts.write'],
}

export function hubspotOAuth2(extraFields: readonly AuthField[]): OAuth2Auth {
  return {
    kind: 'oauth2',
    fields: [...TOKEN_FIELDS, ...extraFields],
    authorizeUrl: HUBSPOT_AUTHORIZE_URL,
    tokenUrl: HUBSPOT_TOKEN_URL,
    scopes: HUBSPOT_SCOPES,
    alwaysScopes: ['oauth'],
    // HubSpot's authorization code flow takes no PKCE parameters (working-with-oauth guide).
    pkce: false,
  }
}

import type { AuthField, OAuth2Auth } from '../types.js'

/**
 * Gusto's OAuth (docs.gusto.com/app-integrations/docs/oauth2): authorization code flow at
 * `api.gusto.com/oauth/authorize`, tokens at `/oauth/token`; access tokens last 2 hours, and each refresh
 * returns a new refresh token (docs.gusto.com/embedded-payroll/docs/company-access-tokens). Development runs
 * against the demo environment, `api.gusto-demo.com`: point the OAuth app's addresses and `api_url` there.
 */
export const GUSTO_API_URL = 'https://api.gusto.com'
export const GUSTO_AUTHORIZE_URL = `${GUSTO_API_URL}/oauth/authorize`
export const GUSTO_TOKEN_URL = `${GUSTO_API_URL}/oauth/token`

const FIELDS: readonly AuthField[] = [
  {
    name: 'access_token',
    label: 'OAuth access token',
    secret: true,
    required: true,
    description: 'A Gusto company access token (it reads the one company it was granted for)',
  },
  {
    name: 'refresh_token',
    label: 'OAuth refresh token',
    secret: true,
    required: false,
    description: 'The refresh token issued with it; Gusto replaces it on every refresh',
  },
  {
    name: 'client_id',
    label: 'OAuth client ID',
    secret: false,
    required: false,
    description: 'The Gusto application the tokens were issued to (needed to refresh them)',
  },
  {
    name: 'client_secret',
    label: 'OAuth client secret',
    secret: true,
    required: false,
    description: "The application's secret (needed to refresh the tokens)",
  },
  {
    name: 'api_url',
    label: 'API base address',
    secret: false,
    required: false,
    description: `Default: ${GUSTO_API_URL}; https://api.gusto-demo.com for Gusto's demo environment`,
  },
]

/**
 * Gusto assigns an application its scopes when it reviews the application, not per authorization
 * (docs.gusto.com/app-integrations/docs/scopes), so the authorize request names none. What each
 * permission reads, for the scopes to ask Gusto for: employees `employees:read` (and `jobs:read`,
 * `compensations:read` for pay rates), company `companies:read`, locations `companies:read`, groups
 * `departments:read`, payslips `payrolls:read`, benefits `company_benefits:read`, deductions
 * `employee_benefits:read` and `garnishments:read`. A call outside the app's scopes is a 403.
 */
const NO_SCOPE_PARAMETER: OAuth2Auth['scopes'] = {}

export const gustoOAuth2: OAuth2Auth = {
  kind: 'oauth2',
  fields: FIELDS,
  authorizeUrl: GUSTO_AUTHORIZE_URL,
  tokenUrl: GUSTO_TOKEN_URL,
  scopes: NO_SCOPE_PARAMETER,
  // Gusto's authorization code flow takes the client secret; its guides describe no PKCE.
  pkce: false,
}

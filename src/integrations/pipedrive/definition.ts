import { Type } from '@sinclair/typebox'
import { type AuthField, defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { pipedriveBaseUrl, pipedriveOAuth2 } from './oauth.js'
import { personHandlers } from './persons.js'

const API_URL_FIELD: AuthField = {
  name: 'api_url',
  label: 'API base address',
  secret: false,
  required: false,
  description:
    'Default: https://api.pipedrive.com (or the company domain an OAuth token names); or https://<company>.pipedrive.com',
}

/**
 * `GET /v1/users/me`: `{success: true, data: {id, company_id, company_domain, ...}}`, the user with its company's id
 * and domain (https://developers.pipedrive.com/docs/api/v1/Users#getCurrentUser; emulators/pipedrive/routes/persons.ts).
 */
const CURRENT_USER = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    id: Type.Integer(),
    company_id: Type.Integer(),
    company_domain: Type.Optional(Type.String()),
  }),
})

/**
 * Pipedrive persons as CRM contacts, through API v2 (`/api/v2/persons`: cursor paging, `updated_since`,
 * owner/organization/deal filters; v1's `GET /v1/persons` is deprecated, pipedrive/client-nodejs v32 no
 * longer has it). The API token goes in the `x-api-token` header rather than the `api_token` query
 * parameter, so it never sits in an address (https://pipedrive.readme.io/docs/core-api-concepts-authentication).
 */
export default defineIntegration({
  type: 'pipedrive',
  name: 'Pipedrive',
  categories: ['crm'],
  description: 'Pipedrive CRM: persons, with their organization and owner.',
  webUrl: 'https://www.pipedrive.com',
  apiDocsUrl: 'https://developers.pipedrive.com/docs/api/v1/Persons',
  color: '#017737',
  rateLimitDescription:
    'Per token, in 2-second windows: 20 to 120 requests for an API token, 80 to 480 for an OAuth token, by plan, and 10 searches on every plan; plus a daily token budget per company.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_token',
        label: 'API token',
        secret: true,
        required: true,
        description: 'A personal API token (Settings > Personal preferences > API)',
      },
      API_URL_FIELD,
    ],
  },
  // Or OAuth, when the workspace configured a Pipedrive app (the auth endpoint then prefers it).
  oauth: pipedriveOAuth2([API_URL_FIELD]),
  baseUrl: pipedriveBaseUrl,
  authHeaders: (c): Record<string, string> =>
    c.access_token ? { authorization: `Bearer ${c.access_token}` } : { 'x-api-token': c.api_token ?? '' },
  // The token's user and company (Users API, still v1: GET /v1/users/me).
  async verify(client) {
    const me = await verifyCall(client, { path: '/api/v1/users/me' }, CURRENT_USER)
    return {
      user_id: String(me.data.id),
      company_id: String(me.data.company_id),
      company_domain: me.data.company_domain,
    }
  },
  // A 429 says when the 2-second window resets in `x-ratelimit-reset`, in seconds (rate limiting guide).
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after', 'x-ratelimit-reset'] },
  objects: {
    crm_contact: personHandlers,
  },
})

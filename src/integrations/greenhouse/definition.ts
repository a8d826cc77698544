import { Type } from '@sinclair/typebox'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { applicationHandlers } from './applications.js'

const DEFAULT_API_URL = 'https://harvest.greenhouse.io/v3'
/** https://harvestdocs.greenhouse.io/docs/authentication, "Step 2: Generate an access token". */
const DEFAULT_TOKEN_URL = 'https://auth.greenhouse.io/token'
/** "Access Token: 1 hour" (https://harvestdocs.greenhouse.io/docs/harvest-partner-oauth, Key Token Lifetimes). */
const TOKEN_LIFETIME_MS = 60 * 60 * 1000

/**
 * Harvest v3 lists answer a bare JSON array of records, paged by the `Link` header, each application with its
 * numeric `id` (https://harvestdocs.greenhouse.io/docs/list-endpoints, /docs/pagination;
 * emulators/greenhouse/paging.ts `sendPage`, render.ts `renderApplication`).
 */
const APPLICATIONS_PAGE = Type.Array(Type.Object({ id: Type.Integer() }))

/**
 * Greenhouse through Harvest v3 (Harvest v1/v2 were retired on 31 August 2026): applications (read), with
 * their offers as a slow field. A custom integration authenticates with OAuth 2.0 client credentials
 * (https://harvestdocs.greenhouse.io/docs/authentication): a "Harvest V3 (OAuth)" credential's client id and
 * secret, exchanged at auth.greenhouse.io for a bearer token. The credential needs the scopes
 * `harvest:applications:list`, `harvest:sources:list` (`source`), `harvest:rejection_reasons:list`
 * (`rejected_reason`) and `harvest:offers:list` (`offers`).
 */
export default defineIntegration({
  type: 'greenhouse',
  name: 'Greenhouse',
  categories: ['ats'],
  description: 'Greenhouse Recruiting (Harvest API v3): applications and their offers.',
  webUrl: 'https://www.greenhouse.com',
  apiDocsUrl: 'https://harvestdocs.greenhouse.io/',
  color: '#24A47F',
  rateLimitDescription:
    'A fixed window per credential (50 calls per 30 seconds in practice), announced in X-RateLimit-* headers; 429 with Retry-After.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'client_id',
        label: 'Client ID',
        secret: true,
        required: true,
        description:
          'The Client ID of a Harvest V3 (OAuth) credential (Configure > Dev Center > API Credentials) with ' +
          'the scopes harvest:applications:list, harvest:sources:list, harvest:rejection_reasons:list and ' +
          'harvest:offers:list',
      },
      {
        name: 'client_secret',
        label: 'Client Secret',
        secret: true,
        required: true,
        description: 'The Client Secret of that credential (Greenhouse shows it once)',
      },
      {
        name: 'user_id',
        label: 'Greenhouse user id',
        secret: false,
        required: false,
        description:
          'The numeric id of the Greenhouse user the token acts as (the `sub` of the token request); ' +
          "default: the credential's own user",
      },
      {
        name: 'api_url',
        label: 'API base address',
        secret: false,
        required: false,
        description: `Default: ${DEFAULT_API_URL}`,
      },
      {
        name: 'token_url',
        label: 'Token address',
        secret: false,
        required: false,
        description: `Default: ${DEFAULT_TOKEN_URL}`,
      },
    ],
  },
  baseUrl: (c) => withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL),
  // Every request carries the client credentials grant's bearer token instead (clientCredentials below).
  authHeaders: () => ({}),
  clientCredentials: {
    tokenUrl: (c) => c.token_url ?? DEFAULT_TOKEN_URL,
    // "Authentication: HTTP Basic using <<CLIENT_ID>>:<<CLIENT_SECRET>>" (docs/authentication, Step 2).
    client: (c) => ({ id: c.client_id ?? '', secret: c.client_secret ?? '' }),
    // "sub=<<USER_ID>> (a Greenhouse user_id to identify the authorizing user)" (ibid.).
    form: (c) => ({ sub: c.user_id }),
    defaultLifetimeMs: TOKEN_LIFETIME_MS,
    providerName: 'Greenhouse',
  },
  // The cheapest call the credential must be allowed anyway.
  async verify(client) {
    await verifyCall(client, { path: '/applications', query: { per_page: 1 } }, APPLICATIONS_PAGE)
    return {}
  },
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: { ats_application: applicationHandlers },
})

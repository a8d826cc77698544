import { defineIntegration } from '../types.js'
import { applicationHandlers } from './applications.js'

const DEFAULT_API_URL = 'https://harvest.greenhouse.io/v1'

/**
 * Greenhouse through Harvest v1: applications (read), with their offers as a slow field. A Harvest key is
 * all-or-nothing per endpoint, chosen in the Dev Center: it needs "GET: List Applications", "GET: Retrieve
 * Application", "GET: Retrieve Candidate" (the `candidate_id` filter) and "GET: List Offers for Application"
 * (`offers`).
 */
export default defineIntegration({
  type: 'greenhouse',
  name: 'Greenhouse',
  categories: ['ats'],
  description: 'Greenhouse Recruiting (Harvest API v1): applications and their offers.',
  webUrl: 'https://www.greenhouse.com',
  apiDocsUrl: 'https://developers.greenhouse.io/harvest.html',
  color: '#24A47F',
  rateLimitDescription:
    'The X-RateLimit-Limit header per 10 seconds (50 for custom integrations); 429 with Retry-After.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_key',
        label: 'Harvest API key',
        secret: true,
        required: true,
        description:
          'A Harvest API key (Configure > Dev Center > API Credential Management) permitted to list and ' +
          'retrieve applications, retrieve candidates and list offers for an application',
      },
      {
        name: 'api_url',
        label: 'API base address',
        secret: false,
        required: false,
        description: `Default: ${DEFAULT_API_URL}`,
      },
    ],
  },
  baseUrl: (c) => (c.api_url ?? DEFAULT_API_URL).replace(/\/+$/, ''),
  // Basic auth with the key as the username and a blank password (harvest.html#authentication).
  authHeaders: (c) => ({ authorization: `Basic ${Buffer.from(`${c.api_key ?? ''}:`).toString('base64')}` }),
  // The cheapest call the key must be allowed anyway.
  async verify(client) {
    await client.json({ path: '/applications', query: { per_page: 1, skip_count: 'true' } })
    return {}
  },
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: { ats_application: applicationHandlers },
})

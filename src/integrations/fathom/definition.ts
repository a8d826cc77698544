import { Type } from '@sinclair/typebox'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { propertyHandlers, siteAccessOf } from './properties.js'
import { reportHandlers } from './reports.js'

const DEFAULT_API_URL = 'https://api.usefathom.com/v1'

/**
 * "Get token": the token's `name` and its `abilities` (`*`, `all-sites-readonly`, `read:<site>`, ...), never its
 * secret (https://usefathom.com/api/v1/account; emulators/fathom/routes/sites.ts).
 */
const TOKEN = Type.Object({ name: Type.String(), abilities: Type.Array(Type.String()) })

/**
 * Fathom offers sites and aggregate reports. Its "events" are goal definitions, not recorded events, and
 * it has no API to read or send events, sessions or visitors: those answer 501.
 */
export default defineIntegration({
  type: 'fathom',
  name: 'Fathom',
  categories: ['analytics'],
  description: 'Fathom Analytics: sites and aggregate reports.',
  webUrl: 'https://usefathom.com',
  apiDocsUrl: 'https://usefathom.com/api',
  color: '#9187FF',
  rateLimitDescription: '2,000 requests per hour on sites; 10 per minute on aggregations.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_key',
        label: 'API token',
        secret: true,
        required: true,
        description:
          'A Fathom API token (Settings > API): admin, read only (all sites), or site-specific; ' +
          'a site-specific token sees only its sites and cannot create sites',
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
  baseUrl: (c) => withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL),
  authHeaders: (c) => ({ authorization: `Bearer ${c.api_key ?? ''}` }),
  // `GET /token` works for any valid token, where `GET /sites` needs all-sites access, so a
  // least-privilege site token can connect too (https://usefathom.com/api/v1/account, "Get token").
  async verify(client) {
    const token = await verifyCall(client, { path: '/token' }, TOKEN)
    return siteAccessOf(token.abilities)
  },
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: {
    analytics_property: propertyHandlers,
    analytics_report: { ...reportHandlers, requiredParams: ['property_id'] },
  },
})

import { Type } from '@sinclair/typebox'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { type AuthField, defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { leverApplicationPushes } from './native-webhooks.js'
import { leverOAuth2 } from './oauth.js'
import { opportunityHandlers } from './opportunities.js'

const DEFAULT_API_URL = 'https://api.lever.co/v1'

const API_KEY_FIELD: AuthField = {
  name: 'api_key',
  label: 'API key',
  secret: true,
  required: true,
  description:
    'A Lever API key (Settings > Integrations and API > API credentials) with read access to ' +
    'opportunities, offers, stages and archive reasons (and to webhooks, for native webhooks); created with ' +
    '"Allow access to confidential data" or confidential opportunities are not listed',
}

const API_URL_FIELD: AuthField = {
  name: 'api_url',
  label: 'API base address',
  secret: false,
  required: false,
  description: `Default: ${DEFAULT_API_URL} (EU accounts: https://api.eu.lever.co/v1)`,
}

/**
 * Every Lever list answers `{data: [...], hasNext, next?}` (https://hire.lever.co/developer/documentation#pagination;
 * emulators/lever/paging.ts), an opportunity with its string `id` (#opportunities).
 */
const OPPORTUNITIES_PAGE = Type.Object({
  data: Type.Array(Type.Object({ id: Type.String() })),
  hasNext: Type.Boolean(),
})

/**
 * Lever through its API v1: opportunities (a candidate considered for a job) as applications, read-only, with
 * their offers as a slow field, and pushed to native webhooks through Lever's webhooks. A key needs read access
 * to opportunities, offers, stages and archive reasons (and webhooks access for native webhooks).
 */
export default defineIntegration({
  type: 'lever',
  name: 'Lever',
  categories: ['ats'],
  description: 'Lever (API v1): opportunities as applications, and their offers.',
  webUrl: 'https://www.lever.co',
  apiDocsUrl: 'https://hire.lever.co/developer/documentation',
  color: '#5A6AF0',
  rateLimitDescription: '10 requests per second per key, bursts of 20 (token bucket); 429 beyond.',
  auth: { kind: 'api_key', fields: [API_KEY_FIELD, API_URL_FIELD] },
  // Or OAuth, when the workspace configured a Lever OAuth app (the auth endpoint then prefers it).
  oauth: leverOAuth2([API_URL_FIELD]),
  baseUrl: (c) => withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL),
  // An OAuth access token as a bearer; else Basic auth with the key as the username and a blank password
  // (hire.lever.co/developer/documentation#authentication).
  authHeaders: (c) =>
    c.access_token
      ? { authorization: `Bearer ${c.access_token}` }
      : { authorization: `Basic ${Buffer.from(`${c.api_key ?? ''}:`).toString('base64')}` },
  async verify(client) {
    await verifyCall(client, { path: '/opportunities', query: { limit: 1 } }, OPPORTUNITIES_PAGE)
    return {}
  },
  // Lever documents no wait header on its 429: backoff then.
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: { ats_application: { ...opportunityHandlers, nativeWebhooks: leverApplicationPushes } },
})

import { Type } from '@sinclair/typebox'
import { ProviderError } from '../../errors.js'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { defineIntegration } from '../types.js'
import { UnexpectedVerifyAnswer, verifyCall } from '../verify-answer.js'
import { eventHandlers } from './events.js'
import { propertyHandlers } from './properties.js'
import { reportHandlers } from './reports.js'

const DEFAULT_API_URL = 'https://plausible.io'

/**
 * List sites: `{sites: [{domain, timezone}], meta: {after, before, limit}}` (https://plausible.io/docs/sites-api,
 * "List existing sites"; plausible/analytics@0b6cea7d:extra/lib/plausible_web/controllers/api/external_sites_controller.ex;
 * emulators/plausible/routes/sites.ts).
 */
const SITES_PAGE = Type.Object({
  sites: Type.Array(Type.Object({ domain: Type.String() })),
  meta: Type.Object({}),
})

/** Plausible's refusal of a query without a site once the key is accepted: 400 "Missing site ID...". */
const isMissingSite = (err: unknown) =>
  err instanceof ProviderError && err.status === 400 && /site id/i.test(err.providerMessage)

export default defineIntegration({
  type: 'plausible',
  name: 'Plausible',
  categories: ['analytics'],
  description:
    'Plausible Analytics (Cloud or Community Edition): sites (Sites API), event recording and aggregate reports.',
  webUrl: 'https://plausible.io',
  apiDocsUrl: 'https://plausible.io/docs/stats-api',
  color: '#5850EC',
  rateLimitDescription:
    '600 requests per hour per API key (Stats and Sites APIs), unless raised by Plausible.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_key',
        label: 'API key',
        secret: true,
        required: true,
        description:
          'A Plausible API key (Account settings > API keys): a Stats API key reads sites and reports; creating, renaming or deleting sites needs a Sites API key',
      },
      {
        name: 'api_url',
        label: 'Base address',
        secret: false,
        required: false,
        description: `Community Edition: https://<your host>. Default: ${DEFAULT_API_URL} (Plausible Cloud, EU-hosted)`,
      },
    ],
  },
  baseUrl: (c) => withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL),
  authHeaders: (c) => ({ authorization: `Bearer ${c.api_key ?? ''}` }),
  /**
   * Checks the key with the Stats API, which every edition and every key has: a query without a site
   * is answered 400 "Missing site ID" once the key is accepted, 401 when it is not
   * (plausible/analytics lib/plausible_web/plugs/authorize_public_api.ex: the key is found before the
   * site), so a 2xx there is not Plausible. Then whether the Sites API exists: Community Edition has none (404).
   */
  async verify(client) {
    const query = { method: 'POST', path: '/api/v2/query', body: {}, idempotent: true } as const
    const refusal = await client.json(query).then(
      () => undefined,
      (err: unknown) => err,
    )
    // A 2xx to a query naming no site is not Plausible, whatever its body: Plausible always refuses it.
    if (refusal === undefined) throw new UnexpectedVerifyAnswer(`${query.method} ${query.path}`)
    if (!isMissingSite(refusal)) throw refusal
    try {
      await verifyCall(client, { path: '/api/v1/sites', query: { limit: 1 } }, SITES_PAGE)
      return { sites_api: 'available' }
    } catch (err) {
      if (err instanceof ProviderError && err.status === 404) return { sites_api: 'unavailable' }
      throw err
    }
  },
  // Plausible sends no wait header with its 429; Retry-After is honoured should a proxy add one.
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: {
    analytics_property: { ...propertyHandlers, requiredFields: ['name'] },
    analytics_event: { ...eventHandlers, requiredFields: ['property_id', 'page_url', 'raw.ip'] },
    analytics_report: { ...reportHandlers, requiredParams: ['property_id'] },
  },
})

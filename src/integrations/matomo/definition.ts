import { Type } from '@sinclair/typebox'
import { badRequest } from '../../errors.js'
import { defineIntegration } from '../types.js'
import { verifyAnswer } from '../verify-answer.js'
import { callMatomo, MATOMO_FIXED_PARAMS } from './client.js'
import { eventHandlers } from './event.js'
import { propertyHandlers } from './property.js'
import { reportHandlers } from './report.js'
import { sessionHandlers } from './session.js'
import { visitorHandlers } from './visitor.js'

/**
 * `API.getMatomoVersion` returns a string, which the JSON renderer answers as `{"value": "<version>"}`, as for
 * every scalar (https://developer.matomo.org/api-reference/reporting-api, API.getMatomoVersion;
 * emulators/matomo/api/dispatch.ts).
 */
const VERSION = Type.Object({ value: Type.String() })

export default defineIntegration({
  type: 'matomo',
  name: 'Matomo',
  categories: ['analytics'],
  description: 'Matomo (self-hosted or Matomo Cloud): sites, visits, actions, visitor profiles and reports.',
  webUrl: 'https://matomo.org',
  apiDocsUrl: 'https://developer.matomo.org/api-reference/reporting-api',
  color: '#3152A0',
  rateLimitDescription: 'No API rate limit in Matomo itself; report archiving cost dominates.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'token_auth',
        label: 'Auth token',
        secret: true,
        required: true,
        description: 'Administration → Personal → Security → Auth tokens (32 hex characters)',
      },
      {
        name: 'api_url',
        label: 'Matomo address',
        secret: false,
        required: false,
        description: 'Base address of a self-hosted Matomo, such as https://analytics.example.com',
      },
      {
        name: 'account',
        label: 'Matomo Cloud account',
        secret: false,
        required: false,
        description: 'For Matomo Cloud: the <account> of https://<account>.matomo.cloud',
      },
    ],
  },
  baseUrl(credentials) {
    if (credentials.api_url) return credentials.api_url
    if (credentials.account && /^[a-z0-9-]+$/i.test(credentials.account)) {
      return `https://${credentials.account}.matomo.cloud`
    }
    throw badRequest('Matomo needs auth.api_url (self-hosted) or auth.account (Matomo Cloud)')
  },
  // The token travels in each POST body (Matomo's recommendation), never in a header or URL.
  authHeaders: () => ({}),
  async verify(client, credentials) {
    const method = 'API.getMatomoVersion'
    const version = verifyAnswer(method, VERSION, await callMatomo<unknown>({ client, credentials }, method))
    return { matomo_version: version.value }
  },
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  // A raw `method` would run any method the token allows (SitesManager.deleteSite under a read grant).
  // The others Unigate sets on every call that reads them: a raw one replaced Unigate's (a site list cut to
  // `filter_limit` sites, a report breakdown cut short) or was replaced by it, unsaid either way.
  rawOwned: {
    ...Object.fromEntries(
      MATOMO_FIXED_PARAMS.map((name) => [name, 'Unigate chooses it for each Matomo method it calls']),
    ),
    filter_limit: 'Unigate pages with limit and offset',
    filter_offset: 'Unigate pages with limit and offset',
    // Live.getLastVisitsDetails reads it in place of filter_limit and filter_offset (plugins/Live/API.php).
    countVisitorsToFetch: 'Unigate pages with limit and offset',
    idSite: "give the site as property_id, or in the record's id",
  },
  objects: {
    analytics_property: propertyHandlers,
    analytics_event: { ...eventHandlers, requiredParams: ['property_id'], requiredFields: ['property_id'] },
    analytics_session: { ...sessionHandlers, requiredParams: ['property_id'] },
    analytics_visitor: visitorHandlers,
    analytics_report: { ...reportHandlers, requiredParams: ['property_id'] },
  },
})

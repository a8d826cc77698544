import { Type } from '@sinclair/typebox'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { eventHandlers } from './events.js'
import { apiUrlOf, hostingOf, umamiAuthHeaders } from './hosting.js'
import { propertyHandlers } from './properties.js'
import { reportHandlers } from './reports.js'
import { sessionHandlers } from './sessions.js'

/**
 * `GET /websites` answers a `WebsitePage`, `{data, count, page, pageSize, orderBy, search}`, every key set
 * by `pagedQuery` whatever the rows (umami-software/umami@v3.1.0:src/lib/prisma.ts `pagedQuery`,
 * src/app/api/websites/route.ts; emulators/umami/routes/websites.ts `listWebsites`; providers.md, Umami).
 */
const WEBSITE_PAGE = Type.Object({
  data: Type.Array(Type.Object({ id: Type.String() })),
  count: Type.Number(),
  page: Type.Number(),
  pageSize: Type.Number(),
})

export default defineIntegration({
  type: 'umami',
  name: 'Umami',
  categories: ['analytics'],
  description: 'Umami Cloud or a self-hosted Umami: websites, events, sessions and reports.',
  webUrl: 'https://umami.is',
  apiDocsUrl: 'https://umami.is/docs/api',
  color: '#000000',
  rateLimitDescription: 'Umami Cloud: 50 calls per 15 seconds per API key; self-hosted: none.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_key',
        label: 'API key or login token',
        secret: true,
        required: true,
        // Self-hosted Umami has no API keys: only the token `POST /api/auth/login` answers
        // (umami-software/umami@v3.1.0:src/lib/auth.ts, src/app/api/auth/login/route.ts).
        description:
          'Umami Cloud: an API key (Settings > API keys). Self-hosted: a login token, the `token` that ' +
          'POST <host>/api/auth/login with {"username","password"} answers (self-hosted Umami has no API keys)',
      },
      {
        name: 'hosting',
        label: 'Hosting',
        secret: false,
        required: false,
        options: ['cloud', 'self_hosted'],
        description: 'cloud (default without api_url) or self_hosted (default with api_url)',
      },
      {
        name: 'api_url',
        label: 'API base address',
        secret: false,
        required: false,
        description: 'Self-hosted: https://<host>/api. Default: https://api.umami.is/v1 (Umami Cloud)',
      },
      {
        name: 'collect_url',
        label: 'Event collector address',
        secret: false,
        required: false,
        description:
          'Where events are sent; default <api_url>/send when self-hosted, Umami Cloud collector otherwise',
      },
    ],
  },
  baseUrl: apiUrlOf,
  authHeaders: umamiAuthHeaders,
  async verify(client, credentials) {
    await verifyCall(client, { path: '/websites', query: { page: 1, pageSize: 1 } }, WEBSITE_PAGE)
    return { hosting: hostingOf(credentials) }
  },
  // Umami sends no wait header on 429; Retry-After is honoured should a proxy in front add one.
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  rawOwned: {
    page: 'Unigate pages with limit and offset',
    pageSize: 'Unigate pages with limit and offset',
    startAt: 'use start_gte and end_lt',
    endAt: 'use start_gte and end_lt',
    unit: "Unigate chooses it from the report's dimension",
    timezone: 'Unigate reads series in UTC',
  },
  objects: {
    analytics_property: { ...propertyHandlers, requiredFields: ['name', 'raw.domain'] },
    analytics_event: { ...eventHandlers, requiredParams: ['property_id'], requiredFields: ['property_id'] },
    analytics_session: { ...sessionHandlers, requiredParams: ['property_id'] },
    analytics_report: { ...reportHandlers, requiredParams: ['property_id'] },
  },
})

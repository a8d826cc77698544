import { Type } from '@sinclair/typebox'
import { googleFieldOf } from '../google/field-names.js'
import { GOOGLE_SCOPES, googleAuthHeaders, googleOAuth2 } from '../google/oauth.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { ga4Events } from './events.js'
import { GA4_REGIONS, ga4AdminBase } from './hosts.js'
import { ga4Properties } from './properties.js'
import { ga4Reports } from './reports.js'

/**
 * `ListAccountSummariesResponse`: `accountSummaries` (each with its `name` and `account`) and `nextPageToken`
 * (googleapis/googleapis@99b25248:google/analytics/admin/v1beta/analytics_admin.proto; resources.proto
 * `AccountSummary`; emulators/ga4/routes/admin.ts). The response has no `kind`, and proto3 JSON leaves out empty
 * fields: a Google account with no Analytics account answers `{}`, which no check can tell from another JSON
 * service answering `{}`. So only the fields given are checked, by type; an empty answer verifies, as an
 * account whose owner has yet to create a GA4 account must.
 */
const ACCOUNT_SUMMARIES = Type.Object({
  accountSummaries: Type.Optional(Type.Array(Type.Object({ name: Type.String(), account: Type.String() }))),
  nextPageToken: Type.Optional(Type.String()),
})

export default defineIntegration({
  type: 'googleanalytics',
  name: 'Google Analytics 4',
  categories: ['analytics'],
  description:
    'Properties (Admin API), aggregate reports (Data API runReport) and server-side events (Measurement Protocol). ' +
    'GA4 has no row-level events, sessions or visitors outside its BigQuery export.',
  webUrl: 'https://analytics.google.com',
  apiDocsUrl: 'https://developers.google.com/analytics/devguides/reporting/data/v1',
  color: '#E37400',
  rateLimitDescription:
    'Data API: 200,000 tokens a day and 40,000 an hour per standard property (10x for GA4 360), 10 concurrent ' +
    'requests; exhaustion answers 429 RESOURCE_EXHAUSTED. Admin API: per-project request quotas.',
  auth: googleOAuth2(
    {
      analytics_property_read: [GOOGLE_SCOPES.analyticsReadonly],
      analytics_property_write: [GOOGLE_SCOPES.analyticsEdit],
      analytics_report_read: [GOOGLE_SCOPES.analyticsReadonly],
      // The Measurement Protocol authenticates with the stream's api_secret, not with OAuth.
      analytics_event_write: [],
    },
    [
      {
        name: 'measurement_id',
        label: 'Measurement ID',
        secret: false,
        required: false,
        description: "The web stream's measurement id (G-...), needed to send events",
      },
      {
        name: 'api_secret',
        label: 'Measurement Protocol API secret',
        secret: true,
        required: false,
        description: 'A Measurement Protocol API secret of that stream, needed to send events',
      },
      {
        name: 'region',
        label: 'Event collection region',
        secret: false,
        required: false,
        options: GA4_REGIONS,
        description: 'global (default) or eu: eu sends events to region1.google-analytics.com',
      },
    ],
  ),
  baseUrl: ga4AdminBase,
  authHeaders: googleAuthHeaders,
  // One account summary proves the token and its Analytics scope.
  verify: async (client) => {
    await verifyCall(client, { path: '/v1beta/accountSummaries', query: { pageSize: 1 } }, ACCOUNT_SUMMARIES)
    return {}
  },
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  // Google reads `page_token` as `pageToken`: a raw one under either name is refused where Unigate sets it.
  rawParamField: googleFieldOf,
  objects: {
    analytics_property: { ...ga4Properties, requiredFields: ['parent_id', 'timezone'] },
    analytics_report: { ...ga4Reports, requiredParams: ['property_id'] },
    analytics_event: { ...ga4Events, anonymousVisitor: true },
  },
})

import { Type } from '@sinclair/typebox'
import { badRequest, ProviderError } from '../../errors.js'
import { googleFieldOf } from '../google/field-names.js'
import { GOOGLE_SCOPES, googleAuthHeaders, googleOAuth2 } from '../google/oauth.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { youtubeDataBase } from './hosts.js'
import { youtubeChannels } from './properties.js'
import { youtubeReports } from './reports.js'

/**
 * channels.list answers a `channelListResponse`: its `kind` ("youtube#channelListResponse") and `etag` always,
 * `items` (each channel with its `id`) left out when no channel matches, as Google leaves out empty lists
 * (https://developers.google.com/youtube/v3/docs/channels/list#response; providers.md 8.3;
 * emulators/youtube/routes/channels.ts). An account without a channel still names the response's `kind`.
 */
const CHANNEL_LIST = Type.Object({
  kind: Type.Literal('youtube#channelListResponse'),
  etag: Type.String(),
  items: Type.Optional(Type.Array(Type.Object({ id: Type.String() }))),
})

export default defineIntegration({
  type: 'youtube',
  name: 'YouTube',
  categories: ['analytics'],
  description:
    'Channels as properties (Data API v3, read-only) and channel reports (YouTube Analytics API v2). ' +
    'YouTube has no event, session or visitor data.',
  webUrl: 'https://studio.youtube.com',
  apiDocsUrl: 'https://developers.google.com/youtube/analytics',
  color: '#FF0000',
  rateLimitDescription:
    'Data API: 10,000 quota units a day per project (a channel read costs 1), reset at midnight Pacific Time; ' +
    'quota refusals are 403 quotaExceeded, answered here as 429 with retry-after.',
  auth: {
    ...googleOAuth2(
      {
        analytics_property_read: [GOOGLE_SCOPES.youtubeReadonly],
        // REVENUE also needs yt-analytics-monetary.readonly, which only monetized channels can grant.
        analytics_report_read: [GOOGLE_SCOPES.ytAnalyticsReadonly],
      },
      [
        {
          name: 'content_owner_id',
          label: 'Content owner ID',
          secret: false,
          required: false,
          description:
            'For YouTube partners: the content owner (CMS) whose channels to read; the token must be granted ' +
            'the youtubepartner scope, so connect with tokens that carry it',
        },
      ],
    ),
    // Verification reads the token's channel with channels.list, which takes youtube.readonly (or a
    // broader YouTube scope) and not the Analytics scopes: without it a report-only connection could not
    // be verified (https://developers.google.com/youtube/v3/docs/channels/list#auth).
    alwaysScopes: [GOOGLE_SCOPES.youtubeReadonly],
  },
  baseUrl: youtubeDataBase,
  authHeaders: googleAuthHeaders,
  // One channel read (1 quota unit) proves the token and finds the channel reports default to.
  verify: async (client, credentials) => {
    const owner = credentials.content_owner_id
    const res = await verifyCall(
      client,
      {
        path: '/youtube/v3/channels',
        query: owner
          ? { part: 'id', managedByMe: 'true', onBehalfOfContentOwner: owner, maxResults: 1 }
          : { part: 'id', mine: 'true' },
      },
      CHANNEL_LIST,
    ).catch((err: unknown) => {
      // Acting for a content owner takes the youtubepartner scope, on the Data API and on content-owner
      // reports alike (https://developers.google.com/youtube/v3/docs/channels/list#auth,
      // https://developers.google.com/youtube/analytics/content_owner_reports).
      if (owner && err instanceof ProviderError && err.status === 403 && /scope/i.test(err.providerMessage)) {
        throw badRequest(
          `content_owner_id: acting for content owner ${owner} needs a token granted the youtubepartner scope`,
        )
      }
      throw err
    })
    if (owner) return {}
    const channel = res.items?.[0]?.id
    if (!channel) throw badRequest('this Google account has no YouTube channel')
    return { channel_id: channel }
  },
  // Quota refusals are 403s, never worth retrying; 429 is for bursts.
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  // Google reads `page_token` as `pageToken`: a raw one under either name is refused where Unigate sets it.
  rawParamField: googleFieldOf,
  objects: {
    analytics_property: youtubeChannels,
    analytics_report: youtubeReports,
  },
})

import type { UnifiedRecord } from '../../models/index.js'
import type { YoutubeChannel } from './provider-types.js'

/**
 * The time zone YouTube Analytics days are counted in, taken to be Pacific Time whatever the channel's
 * country. UNCONFIRMED: Google's own pages reachable for this review (reports.query, the data model, the
 * dimensions list with `day`, and the youtubeAnalytics v2 discovery document,
 * googleapis/google-api-go-client@6243c413:youtubeanalytics/v2/youtubeanalytics-api.json) give `day` as a
 * bare `YYYY-MM-DD` and name no time zone; Pacific is the YouTube Studio convention the provider notes
 * mark as unsure (providers.md 8.5). Nothing there says otherwise either, so it stays until a live
 * account shows a day boundary.
 */
export const YOUTUBE_REPORT_TIME_ZONE = 'America/Los_Angeles'

/** Channel ids are `UC` and 22 more characters of [A-Za-z0-9_-]. */
export const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/

/** Channel parts that only `raw` shows; `snippet` carries the unified fields and is always asked for. */
export const RAW_PARTS = [
  'contentDetails',
  'statistics',
  'status',
  'brandingSettings',
  'topicDetails',
] as const

/** The `part` list for a read: the snippet, plus the parts `raw` (all) or `raw.<part>` (that one) asks for. */
export function youtubeChannelParts(raw: boolean, rawNames: readonly string[]): string {
  const extra = raw ? [...RAW_PARTS] : RAW_PARTS.filter((p) => rawNames.includes(p))
  return ['snippet', ...extra].join(',')
}

/** A channel as a property; `parent_id` is the content owner managing it, when the connection has one. */
export function fromYoutubeChannel(channel: YoutubeChannel, contentOwner?: string): UnifiedRecord {
  const published = channel.snippet?.publishedAt ? new Date(channel.snippet.publishedAt) : undefined
  return {
    id: channel.id,
    name: channel.snippet?.title,
    timezone: YOUTUBE_REPORT_TIME_ZONE,
    parent_id: contentOwner,
    created_at: published && !Number.isNaN(published.getTime()) ? published : undefined,
    raw: { ...channel },
  }
}

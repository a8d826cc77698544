import type { UnifiedRecord } from '../../models/index.js'
import type { YoutubeChannel } from './provider-types.js'

/**
 * YouTube Analytics counts days in Pacific Time whatever the channel's country (providers.md 8.5), so that
 * is the time zone a channel reports in.
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

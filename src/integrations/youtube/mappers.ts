import type { UnifiedRecord } from '../../models/index.js'
import type { YoutubeChannel } from './provider-types.js'

/**
 * The time zone YouTube Analytics days are counted in: Pacific Time, whatever the channel's country.
 * reports.query and its discovery document give `day` as a bare `YYYY-MM-DD`
 * (googleapis/google-api-go-client@6243c413:youtubeanalytics/v2/youtubeanalytics-api.json); the zone is in
 * Google's definition of the same data's `date` in the YouTube Reporting API, whose bulk reports hold "the
 * bulk data sets that you can query with the YouTube Analytics API"
 * (https://developers.google.com/youtube/reporting/v1/reports): "All bulk reports contain data for a
 * unique 24-hour period beginning at 12:00 a.m. Pacific time (UTC-8)"
 * (https://developers.google.com/youtube/reporting/v1/reports/dimensions, `date`; Google's wording as the
 * BigQuery YouTube transfer writes it into its tables, copied in
 * Pieter-devries/youtube_analytics@821772a9:views/p_channel_province_a2_daily_first.view.lkml).
 * Not stated: whether the boundary follows daylight saving (UTC-7 in summer); America/Los_Angeles does,
 * as Google's "midnight Pacific Time" quota reset does.
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

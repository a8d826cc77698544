import { notImplemented } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { numberOf, type ReportMetricValue, reportRecord } from '../google/report-records.js'
import { isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import { addDays, utcMs, zonedStart } from '../zones.js'
import { YOUTUBE_REPORT_TIME_ZONE } from './mappers.js'
import type { YoutubeResultTable } from './provider-types.js'

/** Unified metric type -> YouTube Analytics metric (providers.md 8.5, 12.2). */
export const YOUTUBE_METRICS: Readonly<Record<string, string>> = {
  VIDEO_VIEWS: 'views',
  WATCH_TIME: 'estimatedMinutesWatched',
  AVERAGE_VIEW_DURATION: 'averageViewDuration',
  AVERAGE_VIEW_PERCENTAGE: 'averageViewPercentage',
  LIKES: 'likes',
  DISLIKES: 'dislikes',
  COMMENTS: 'comments',
  SHARES: 'shares',
  SUBSCRIBERS_GAINED: 'subscribersGained',
  SUBSCRIBERS_LOST: 'subscribersLost',
  REVENUE: 'estimatedRevenue',
}

/** Unified dimension -> YouTube Analytics dimension. */
export const YOUTUBE_DIMENSIONS: Readonly<Record<string, string>> = {
  DATE: 'day',
  MONTH: 'month',
  COUNTRY: 'country',
  CITY: 'city',
  DEVICE_TYPE: 'deviceType',
  OS: 'operatingSystem',
  SOURCE: 'insightTrafficSourceType',
  VIDEO: 'video',
}

const CORE = [
  'VIDEO_VIEWS',
  'WATCH_TIME',
  'AVERAGE_VIEW_DURATION',
  'AVERAGE_VIEW_PERCENTAGE',
  'LIKES',
  'DISLIKES',
  'COMMENTS',
  'SHARES',
  'SUBSCRIBERS_GAINED',
  'SUBSCRIBERS_LOST',
]
const WATCHING = ['VIDEO_VIEWS', 'WATCH_TIME', 'AVERAGE_VIEW_DURATION', 'AVERAGE_VIEW_PERCENTAGE']

/**
 * YouTube serves only its "available reports": each dimension allows some metrics and refuses the query
 * otherwise. Metrics per unified dimension (`''` = no dimension); REVENUE also needs the monetary scope.
 */
export const YOUTUBE_REPORTS: Readonly<Record<string, readonly string[]>> = {
  '': [...CORE, 'REVENUE'],
  DATE: [...CORE, 'REVENUE'],
  MONTH: [...CORE, 'REVENUE'],
  COUNTRY: [...CORE, 'REVENUE'],
  VIDEO: [...CORE, 'REVENUE'],
  CITY: WATCHING,
  DEVICE_TYPE: ['VIDEO_VIEWS', 'WATCH_TIME'],
  OS: ['VIDEO_VIEWS', 'WATCH_TIME'],
  SOURCE: ['VIDEO_VIEWS', 'WATCH_TIME'],
}

/** Top-N reports: YouTube wants them sorted by a metric, descending, and caps `maxResults`. */
export const YOUTUBE_TOP_N: Readonly<Record<string, number>> = { VIDEO: 200, CITY: 250 }

/** The YouTube metrics for a report, refusing (501) types YouTube has no metric for or cannot break down so. */
export function toYoutubeMetrics(
  types: ReadonlySet<string> | undefined,
  dimension: string | undefined,
): { type: string; name: string }[] {
  const available = YOUTUBE_REPORTS[dimension ?? ''] ?? []
  // REVENUE is left out by default: it needs the monetary scope, which most connections lack.
  const wanted = types ? [...types] : available.filter((t) => t !== 'REVENUE')
  const missing = wanted.filter((t) => !YOUTUBE_METRICS[t])
  if (missing.length > 0) {
    throw notImplemented(
      `YouTube (youtube) has no metric for report type ${missing.join(', ')}; it reports: ${Object.keys(YOUTUBE_METRICS).join(', ')}`,
    )
  }
  const refused = wanted.filter((t) => !available.includes(t))
  if (refused.length > 0) {
    throw notImplemented(
      `YouTube (youtube) cannot report ${refused.join(', ')} by ${dimension ?? 'total'}; ` +
        `by ${dimension ?? 'total'} it reports: ${available.join(', ')}`,
    )
  }
  return wanted.map((type) => ({ type, name: YOUTUBE_METRICS[type] as string }))
}

export function toYoutubeDimension(dimension: string | undefined): string | undefined {
  if (dimension === undefined) return undefined
  const name = YOUTUBE_DIMENSIONS[dimension]
  if (!name) {
    throw notImplemented(
      `YouTube (youtube) cannot break reports down by ${dimension}; it can by: ${Object.keys(YOUTUBE_DIMENSIONS).join(', ')}`,
    )
  }
  return name
}

/** Time series in time order; breakdowns by their first metric, largest first (required for top-N). */
export function youtubeSort(dimension: string | undefined, firstMetric: string): string | undefined {
  if (!dimension) return undefined
  if (dimension === 'day' || dimension === 'month') return dimension
  return `-${firstMetric}`
}

export interface YoutubeReportContext {
  readonly propertyId: string
  readonly startDate: string
  readonly endDate: string
  readonly dimension?: string
  readonly types: readonly string[]
}

function bucket(dimension: string | undefined, value: string | undefined) {
  const tz = YOUTUBE_REPORT_TIME_ZONE
  if (dimension === 'DATE' && value && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return { start: zonedStart(value, tz), end: zonedStart(addDays(value, 1), tz) }
  }
  if (dimension === 'MONTH' && value && /^\d{4}-\d{2}$/.test(value)) {
    const [y, m] = value.split('-').map(Number) as [number, number]
    const next = new Date(utcMs(y, m, 1)).toISOString().slice(0, 10)
    return { start: zonedStart(`${value}-01`, tz), end: zonedStart(next, tz) }
  }
  return undefined
}

/**
 * A dimension value as the unified report shows it: a day (`2024-05-01`) or month (`2024-05`) of Pacific
 * Time in the one form of time labels (time-buckets.ts); other values as YouTube gives them.
 */
function labelOf(dimension: string, value: string | undefined): string | undefined {
  if (value === undefined || !isTimeDimension(dimension)) return value
  return timeBucketLabelOf(dimension, value) ?? value
}

/**
 * One unified report per YouTube row. Rows are arrays in `columnHeaders` order with numbers for metrics;
 * WATCH_TIME stays in minutes and AVERAGE_VIEW_DURATION in seconds, as YouTube gives them.
 */
export function fromYoutubeReportRows(table: YoutubeResultTable, ctx: YoutubeReportContext): UnifiedRecord[] {
  const headers = table.columnHeaders ?? []
  const dimIndex = headers.findIndex((h) => h.columnType === 'DIMENSION')
  const rangeStart = zonedStart(ctx.startDate, YOUTUBE_REPORT_TIME_ZONE)
  const rangeEnd = zonedStart(addDays(ctx.endDate, 1), YOUTUBE_REPORT_TIME_ZONE)
  return (table.rows ?? []).map((row) => {
    const value = dimIndex >= 0 ? String(row[dimIndex]) : undefined
    const b = bucket(ctx.dimension, value)
    const metrics: ReportMetricValue[] = []
    for (const type of ctx.types) {
      const index = headers.findIndex((h) => h.name === YOUTUBE_METRICS[type])
      const n = index >= 0 ? numberOf(row[index]) : undefined
      if (n !== undefined) metrics.push({ type, value: n })
    }
    return reportRecord({
      propertyId: ctx.propertyId,
      start: b ? new Date(Math.max(b.start.getTime(), rangeStart.getTime())) : rangeStart,
      end: b ? new Date(Math.min(b.end.getTime(), rangeEnd.getTime())) : rangeEnd,
      ...(ctx.dimension ? { dimension: ctx.dimension, dimensionValue: labelOf(ctx.dimension, value) } : {}),
      metrics,
      raw: { columnHeaders: headers, row },
    })
  })
}

import { notImplemented } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { numberOf, type ReportMetricValue, reportRecord } from '../google/report-records.js'
import { timeBucketLabel } from '../time-buckets.js'
import { addDays, utcMs, zonedStart } from '../zones.js'
import type { Ga4ReportRow, Ga4RunReportResponse } from './provider-types.js'

/** Unified metric type -> Data API metric (providers.md 12.2); types GA4 has no metric for answer 501. */
export const GA4_METRICS: Readonly<Record<string, string>> = {
  USERS: 'activeUsers',
  NEW_USERS: 'newUsers',
  SESSIONS: 'sessions',
  PAGE_VIEWS: 'screenPageViews',
  EVENTS: 'eventCount',
  AVERAGE_SESSION_DURATION: 'averageSessionDuration',
  PAGES_PER_SESSION: 'screenPageViewsPerSession',
  BOUNCE_RATE: 'bounceRate',
  ENGAGEMENT_RATE: 'engagementRate',
  EVENTS_PER_SESSION: 'eventsPerSession',
  CONVERSIONS: 'keyEvents',
  CONVERSION_RATE: 'sessionKeyEventRate',
  TRANSACTIONS: 'transactions',
  REVENUE: 'totalRevenue',
  AVERAGE_ORDER_VALUE: 'averagePurchaseRevenue',
}

/** What a report carries when `type` is not given: the headline metrics, within GA4's 10 per request. */
export const GA4_DEFAULT_TYPES = [
  'USERS',
  'NEW_USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'EVENTS',
  'AVERAGE_SESSION_DURATION',
  'BOUNCE_RATE',
  'ENGAGEMENT_RATE',
  'CONVERSIONS',
  'REVENUE',
] as const

/** A Data API request takes at most 10 metrics. */
export const GA4_MAX_METRICS = 10

/** Unified dimension -> Data API dimension (providers.md 12.3). Time buckets use the date-bearing names. */
export const GA4_DIMENSIONS: Readonly<Record<string, string>> = {
  DATE: 'date',
  HOUR: 'dateHour',
  DAY_OF_WEEK: 'dayOfWeek',
  WEEK: 'isoYearIsoWeek',
  MONTH: 'yearMonth',
  YEAR: 'year',
  PAGE: 'pagePath',
  PAGE_TITLE: 'pageTitle',
  EVENT_NAME: 'eventName',
  SOURCE: 'sessionSource',
  MEDIUM: 'sessionMedium',
  CAMPAIGN: 'sessionCampaignName',
  COUNTRY: 'country',
  CITY: 'city',
  DEVICE_TYPE: 'deviceCategory',
  BROWSER: 'browser',
  OS: 'operatingSystem',
  USER_TYPE: 'newVsReturning',
  LANDING_PAGE: 'landingPage',
}

/** The Data API metrics for the unified types asked for (or the defaults), refusing what GA4 lacks. */
export function toGa4Metrics(types: ReadonlySet<string> | undefined): { type: string; name: string }[] {
  const wanted = types ? [...types] : [...GA4_DEFAULT_TYPES]
  const missing = wanted.filter((t) => !GA4_METRICS[t])
  if (missing.length > 0) {
    throw notImplemented(
      `Google Analytics 4 (googleanalytics) has no metric for report type ${missing.join(', ')}; ` +
        `it reports: ${Object.keys(GA4_METRICS).join(', ')}`,
    )
  }
  return wanted.map((type) => ({ type, name: GA4_METRICS[type] as string }))
}

export function toGa4Dimension(dimension: string | undefined): string | undefined {
  if (dimension === undefined) return undefined
  const name = GA4_DIMENSIONS[dimension]
  if (!name) {
    throw notImplemented(
      `Google Analytics 4 (googleanalytics) cannot break reports down by ${dimension}; ` +
        `it can by: ${Object.keys(GA4_DIMENSIONS).join(', ')}`,
    )
  }
  return name
}

/**
 * A stable order, so offset paging never skips or repeats rows: time buckets chronologically, other
 * breakdowns by their first metric, largest first, then by value.
 */
export function ga4OrderBys(dimension: string | undefined, firstMetric: string): unknown[] {
  if (!dimension) return []
  if (['date', 'dateHour', 'yearMonth', 'isoYearIsoWeek', 'year', 'dayOfWeek'].includes(dimension)) {
    return [{ dimension: { dimensionName: dimension, orderType: 'ALPHANUMERIC' }, desc: false }]
  }
  return [
    { metric: { metricName: firstMetric }, desc: true },
    { dimension: { dimensionName: dimension }, desc: false },
  ]
}

export interface Ga4ReportContext {
  readonly propertyId: string
  /** Inclusive days of the request, resolved to dates in the property's time zone. */
  readonly startDate: string
  readonly endDate: string
  readonly timeZone: string
  /** Unified dimension and metric types, in the order they were requested. */
  readonly dimension?: string
  readonly types: readonly string[]
}

const clampStart = (a: Date, b: Date) => (a.getTime() < b.getTime() ? b : a)
const clampEnd = (a: Date, b: Date) => (a.getTime() > b.getTime() ? b : a)

/** The Monday (YYYY-MM-DD) that starts ISO week `week` of ISO year `year`: week 1 holds January 4th. */
function isoWeekMonday(year: number, week: number): string {
  const jan4 = utcMs(year, 0, 4)
  const sinceMonday = (new Date(jan4).getUTCDay() + 6) % 7
  return new Date(jan4 + ((week - 1) * 7 - sinceMonday) * 86_400_000).toISOString().slice(0, 10)
}

/**
 * A time dimension's value as the unified label (time-buckets.ts), and the bucket of time it covers. GA4
 * gives buckets as compact local dates of the property's zone (`20240501`, `2024050113`, `202405`, `2024`,
 * ISO weeks `202418`) and counts a week only from the window's first day, which then labels it.
 */
function timeBucket(
  dimension: string,
  value: string,
  ctx: Ga4ReportContext,
): { label: string; start: Date; end: Date } | undefined {
  const tz = ctx.timeZone
  const wall = (day: string, hour?: number) => {
    const [year, month, d] = day.split('-').map(Number) as [number, number, number]
    return { year, month, day: d, ...(hour === undefined ? {} : { hour }) }
  }
  if (dimension === 'DATE' && /^\d{8}$/.test(value)) {
    const day = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`
    return {
      label: timeBucketLabel('DATE', wall(day)),
      start: zonedStart(day, tz),
      end: zonedStart(addDays(day, 1), tz),
    }
  }
  if (dimension === 'HOUR' && /^\d{10}$/.test(value)) {
    const day = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`
    const hour = Number(value.slice(8, 10))
    const start = zonedStart(day, tz, hour)
    return {
      label: timeBucketLabel('HOUR', wall(day, hour)),
      start,
      // Until the next local hour begins: two hours for the hour the clocks repeat in autumn, which GA4
      // answers as one `dateHour` row counting both.
      end: new Date(Math.max(start.getTime() + 3_600_000, zonedStart(day, tz, hour + 1).getTime())),
    }
  }
  if (dimension === 'WEEK' && /^\d{6}$/.test(value)) {
    // isoYearIsoWeek is `YYYYWW`, ISO weeks (Monday to Sunday) of the property's calendar
    // (https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema#dimensions).
    const monday = isoWeekMonday(Number(value.slice(0, 4)), Number(value.slice(4, 6)))
    return {
      label: timeBucketLabel('WEEK', wall(monday), ctx.startDate),
      start: zonedStart(monday, tz),
      end: zonedStart(addDays(monday, 7), tz),
    }
  }
  if (dimension === 'YEAR' && /^\d{4}$/.test(value)) {
    return {
      label: timeBucketLabel('YEAR', wall(`${value}-01-01`)),
      start: zonedStart(`${value}-01-01`, tz),
      end: zonedStart(`${Number(value) + 1}-01-01`, tz),
    }
  }
  if (dimension === 'MONTH' && /^\d{6}$/.test(value)) {
    const first = `${value.slice(0, 4)}-${value.slice(4, 6)}-01`
    const y = Number(value.slice(0, 4))
    const m = Number(value.slice(4, 6))
    const next = new Date(utcMs(y, m, 1)).toISOString().slice(0, 10)
    return {
      label: timeBucketLabel('MONTH', wall(first)),
      start: zonedStart(first, tz),
      end: zonedStart(next, tz),
    }
  }
  return undefined
}

/**
 * One unified report per GA4 row. A time bucket (hour, day, ISO week, month, year) becomes the report's start/end,
 * cut to the requested range; other breakdowns cover the whole range. Values are GA4's strings made
 * numbers; rates stay fractions (0-1) and durations seconds, as GA4 gives them.
 */
export function fromGa4ReportRows(res: Ga4RunReportResponse, ctx: Ga4ReportContext): UnifiedRecord[] {
  const rangeStart = zonedStart(ctx.startDate, ctx.timeZone)
  const rangeEnd = zonedStart(addDays(ctx.endDate, 1), ctx.timeZone)
  const metricNames = (res.metricHeaders ?? []).map((h) => h.name)
  const shared = {
    dimensionHeaders: res.dimensionHeaders,
    metricHeaders: res.metricHeaders,
    metadata: res.metadata,
    ...(res.propertyQuota ? { propertyQuota: res.propertyQuota } : {}),
    rowCount: res.rowCount ?? 0,
  }
  return (res.rows ?? []).map((row: Ga4ReportRow) => {
    const value = row.dimensionValues?.[0]?.value
    const bucket = ctx.dimension && value !== undefined ? timeBucket(ctx.dimension, value, ctx) : undefined
    const metrics: ReportMetricValue[] = []
    ctx.types.forEach((type, i) => {
      const name = GA4_METRICS[type]
      const index = metricNames.indexOf(name ?? '')
      const n = numberOf(row.metricValues?.[index >= 0 ? index : i]?.value)
      if (n !== undefined) metrics.push({ type, value: n })
    })
    return reportRecord({
      propertyId: ctx.propertyId,
      start: bucket ? clampStart(bucket.start, rangeStart) : rangeStart,
      end: bucket ? clampEnd(bucket.end, rangeEnd) : rangeEnd,
      ...(ctx.dimension ? { dimension: ctx.dimension, dimensionValue: bucket?.label ?? value } : {}),
      metrics,
      raw: { ...shared, row },
    })
  })
}

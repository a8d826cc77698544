import { type TimeDimension, timeBucketLabelAt } from '../time-buckets.js'
import { utcMs } from '../zones.js'

/**
 * How unified report dimensions reach Umami (providers.md 12.3): time dimensions are buckets of
 * `/pageviews?unit=`, the others are `/metrics?type=` breakdowns.
 */

export type UmamiUnit = 'hour' | 'day' | 'month' | 'year'

export const TIME_UNITS: Readonly<Record<string, UmamiUnit>> = {
  HOUR: 'hour',
  DATE: 'day',
  MONTH: 'month',
  YEAR: 'year',
}

/**
 * `/metrics?type=` per unified dimension, with what its `y` counts. Since Umami v2.19 every breakdown but
 * `event` counts distinct sessions, which is what Umami calls visitors (USERS), not views; `event` counts
 * custom events (umami-software/umami@v3.1.0:src/queries/sql/pageviews/getPageviewMetrics.ts,
 * sessions/getSessionMetrics.ts, events/getEventMetrics.ts).
 */
export const BREAKDOWNS: Readonly<Record<string, { type: string; metric: string }>> = {
  PAGE: { type: 'path', metric: 'USERS' },
  PAGE_TITLE: { type: 'title', metric: 'USERS' },
  LANDING_PAGE: { type: 'entry', metric: 'USERS' },
  EVENT_NAME: { type: 'event', metric: 'EVENTS' },
  SOURCE: { type: 'referrer', metric: 'USERS' },
  MEDIUM: { type: 'utmMedium', metric: 'USERS' },
  CAMPAIGN: { type: 'utmCampaign', metric: 'USERS' },
  COUNTRY: { type: 'country', metric: 'USERS' },
  CITY: { type: 'city', metric: 'USERS' },
  DEVICE_TYPE: { type: 'device', metric: 'USERS' },
  BROWSER: { type: 'browser', metric: 'USERS' },
  OS: { type: 'os', metric: 'USERS' },
}

/**
 * The metrics `/pageviews` buckets carry: `pageviews` counts views, `sessions` counts distinct sessions,
 * i.e. visitors (USERS), not visits (umami-software/umami@v3.1.0:src/queries/sql/sessions/getSessionStats.ts).
 */
export const SERIES_METRICS = ['PAGE_VIEWS', 'USERS'] as const

/** The metrics `/stats` can give (some derived from its totals). */
export const STATS_METRICS = [
  'USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'BOUNCE_RATE',
  'AVERAGE_SESSION_DURATION',
  'PAGES_PER_SESSION',
] as const

const UNIT_MS: Readonly<Record<UmamiUnit, number>> = { hour: 3_600_000, day: 86_400_000, month: 0, year: 0 }

const DIMENSION_OF_UNIT: Readonly<Record<UmamiUnit, TimeDimension>> = {
  hour: 'HOUR',
  day: 'DATE',
  month: 'MONTH',
  year: 'YEAR',
}

/**
 * A bucket's unified `dimension_value` (time-buckets.ts): `2024-05-01`, `2024-05-01T10:00`, `2024-05`,
 * `2024`, of UTC, the zone the buckets are asked in.
 */
export function bucketLabel(start: Date, unit: UmamiUnit): string {
  return timeBucketLabelAt(DIMENSION_OF_UNIT[unit], start, 'UTC')
}

export function bucketEnd(start: Date, unit: UmamiUnit): Date {
  if (unit === 'month') return new Date(utcMs(start.getUTCFullYear(), start.getUTCMonth() + 1, 1))
  if (unit === 'year') return new Date(utcMs(start.getUTCFullYear() + 1, 0, 1))
  return new Date(start.getTime() + UNIT_MS[unit])
}

/** Umami labels buckets `2024-05-01T00:00:00Z` or, on some versions, `2024-05-01 00:00:00` (UTC asked). */
export function parseBucket(x: string): Date | undefined {
  const normal = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(x) ? `${x.replace(' ', 'T')}Z` : x
  const d = new Date(normal)
  return Number.isNaN(d.getTime()) ? undefined : d
}

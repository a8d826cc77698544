import { badRequest } from '../../errors.js'
import type { MetricType } from '../../models/index.js'
import { dayIn, offsetMs, utcMs } from '../zones.js'
import { instantOf } from './zones.js'

/**
 * Every DATE or HOUR bucket of a report's range, empty ones included. HogQL's GROUP BY answers only the
 * days and hours that have rows, so a week with a quiet day came back as six buckets, and a caller drawing
 * a series (or summing buckets against another provider's) read the missing day as absent rather than as
 * zero. PostHog's own trends query fills every interval of its date range with a zero row
 * (PostHog/posthog@007d96b5c00890ecff6086bb8886e55e0b646512:posthog/hogql_queries/insights/trends/trends_query_builder.py
 * `_get_date_subqueries`: `SELECT 0 AS total, … FROM numbers(dateDiff(interval, date_from, date_to))`), and so do
 * we: counts and sums are 0 in an empty bucket; averages and rates (of no sessions) have no value.
 */

export type TimeDimension = 'DATE' | 'HOUR'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** HogQL answers at most this many rows (PostHog/posthog@master:posthog/hogql/constants.py `MAX_SELECT_RETURNED_ROWS`). */
export const HOGQL_MAX_ROWS = 50_000

/** Metrics that are a count or a sum: 0 where nothing happened. Others (averages, rates) stay without value. */
export const ZERO_WHEN_EMPTY: ReadonlySet<MetricType> = new Set<MetricType>([
  'USERS',
  'PAGE_VIEWS',
  'SCREENS',
  'EVENTS',
  'REVENUE',
  'SESSIONS',
])

/**
 * How many rows a grouped query over the range can answer at most (a local day is 23 to 25 hours, and the
 * first and last buckets may be partial); a range with more buckets than HogQL answers rows is a 400.
 */
export function maxTimeBuckets(dimension: TimeDimension, start: Date, end: Date): number {
  const size = dimension === 'DATE' ? DAY_MS : HOUR_MS
  const n = Math.ceil((end.getTime() - start.getTime()) / size) + 2
  if (n > HOGQL_MAX_ROWS) {
    throw badRequest(
      `start_gte/end_lt: PostHog answers at most ${HOGQL_MAX_ROWS} ${dimension} buckets per query; narrow the range`,
    )
  }
  return n
}

/** The key one HogQL DATE or HOUR value is merged and ordered by: the local day, or the hour's UTC instant. */
export function timeBucketKey(dimension: TimeDimension, value: unknown, zone: string): string | undefined {
  if (typeof value !== 'string') return undefined
  if (dimension === 'DATE') return value.slice(0, 10)
  return instantOf(value, zone)?.toISOString()
}

/**
 * The keys of every bucket that overlaps [start, end): the project's local days (YYYY-MM-DD), or the UTC
 * instants its local hours start at (a zone whose offset is not whole hours starts them at :30 or :45 UTC).
 */
export function timeBucketKeys(dimension: TimeDimension, start: Date, end: Date, zone: string): string[] {
  const keys: string[] = []
  if (end <= start) return keys
  if (dimension === 'DATE') {
    const last = dayIn(end.getTime() - 1, zone)
    // Step by noon-to-noon to stay clear of 23- and 25-hour days.
    for (let day = dayIn(start.getTime(), zone); day <= last; ) {
      keys.push(day)
      const [y, m, d] = day.split('-').map(Number) as [number, number, number]
      day = new Date(utcMs(y, m - 1, d) + DAY_MS).toISOString().slice(0, 10)
    }
    return keys
  }
  // The local hour holding `start`: floor its wall time to the hour, at the offset in force then.
  const offset = offsetMs(start.getTime(), zone)
  const wall = start.getTime() + offset
  let hour = wall - (((wall % HOUR_MS) + HOUR_MS) % HOUR_MS) - offset
  for (; hour < end.getTime(); hour += HOUR_MS) keys.push(new Date(hour).toISOString())
  return keys
}

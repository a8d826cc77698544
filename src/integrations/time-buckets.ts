import { ProviderError } from '../errors.js'
import { utcMs, wallClockIn } from './zones.js'

/**
 * The one form of a time dimension's `dimension_value` on every integration (README, "Behaviour where the
 * spec is silent": report time buckets). A bucket is labelled by its first moment as local time of the
 * report's zone, the zone its `start_at`/`end_at` are cut in:
 *
 * - DATE `YYYY-MM-DD`
 * - HOUR `YYYY-MM-DDTHH:00`
 * - WEEK `YYYY-MM-DD`, the first day the bucket counts: the week's first day, or the window's first day
 *   when the provider's week began before the window and is counted from there
 * - MONTH `YYYY-MM`
 * - YEAR `YYYY`
 *
 * Providers label buckets each their own way (GA4 `2026112501` and `202648`, Mixpanel `2026-11-25 01:00:00`,
 * Matomo `2026-11-23,2026-11-29`, Plausible `2026-11-01` for a month, UTC instants elsewhere), so a caller
 * could not group or join rows of two integrations by `dimension_value`. Each connector reads its
 * provider's label (or the bucket's instant) and formats it here. Pure: no clock, no I/O.
 */

export const TIME_DIMENSIONS = ['DATE', 'HOUR', 'WEEK', 'MONTH', 'YEAR'] as const
export type TimeDimension = (typeof TIME_DIMENSIONS)[number]

export function isTimeDimension(dimension: unknown): dimension is TimeDimension {
  return typeof dimension === 'string' && (TIME_DIMENSIONS as readonly string[]).includes(dimension)
}

/** The form each time dimension's `dimension_value` has (the conformance suite checks every integration by it). */
export const TIME_BUCKET_LABEL_FORMS: Readonly<Record<TimeDimension, RegExp>> = {
  DATE: /^\d{4}-\d{2}-\d{2}$/,
  HOUR: /^\d{4}-\d{2}-\d{2}T\d{2}:00$/,
  WEEK: /^\d{4}-\d{2}-\d{2}$/,
  MONTH: /^\d{4}-\d{2}$/,
  YEAR: /^\d{4}$/,
}

/** A local wall time: month 1-12, hour 0-23 (0 where the bucket has no hour). */
export interface WallTime {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour?: number
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

const dayOf = (w: WallTime) => `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`

/**
 * The label of the bucket whose first moment is `wall` (local time of the report's zone). For WEEK,
 * `windowFirstDay` (YYYY-MM-DD, the window's first local day) replaces a week's first day before it: a
 * week the provider counts from the window's first day on is labelled by that day.
 */
export function timeBucketLabel(dimension: TimeDimension, wall: WallTime, windowFirstDay?: string): string {
  switch (dimension) {
    case 'DATE':
      return dayOf(wall)
    case 'HOUR':
      return `${dayOf(wall)}T${pad(wall.hour ?? 0)}:00`
    case 'WEEK': {
      const day = dayOf(wall)
      return windowFirstDay !== undefined && windowFirstDay > day ? windowFirstDay : day
    }
    case 'MONTH':
      return `${pad(wall.year, 4)}-${pad(wall.month)}`
    case 'YEAR':
      return pad(wall.year, 4)
  }
}

/** The label of the bucket that starts at `instant` (ms or Date) in `timeZone` (an IANA name). */
export function timeBucketLabelAt(
  dimension: TimeDimension,
  instant: number | Date,
  timeZone: string,
  windowFirstDay?: string,
): string {
  const w = wallClockIn(typeof instant === 'number' ? instant : instant.getTime(), timeZone)
  return timeBucketLabel(dimension, { year: w.y, month: w.m, day: w.d, hour: w.h }, windowFirstDay)
}

/**
 * A provider's local bucket text as a wall time: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a date with an hour
 * (`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DDTHH`, `YYYY-MM-DDTHH:MM`, seconds and fractions allowed). Text with a
 * zone (`Z`, `+02:00`) is an instant, not a wall time, and reads as nothing here: convert it with
 * `timeBucketLabelAt` in the zone. Undefined for anything else, or a date that does not exist.
 */
export function wallTimeOf(text: string): WallTime | undefined {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d+)?)?)?)?)?)?$/.exec(
    text.trim(),
  )
  if (!m) return undefined
  const wall = {
    year: Number(m[1]),
    month: Number(m[2] ?? 1),
    day: Number(m[3] ?? 1),
    hour: Number(m[4] ?? 0),
  }
  const d = new Date(utcMs(wall.year, wall.month - 1, wall.day, wall.hour))
  const exists =
    d.getUTCFullYear() === wall.year &&
    d.getUTCMonth() === wall.month - 1 &&
    d.getUTCDate() === wall.day &&
    d.getUTCHours() === wall.hour &&
    Number(m[5] ?? 0) < 60 &&
    Number(m[6] ?? 0) < 60
  return exists ? wall : undefined
}

/**
 * A provider's local bucket text (see `wallTimeOf`) as the unified label; undefined when it does not read
 * as one, for the connector to decide (they keep the provider's text rather than lose the row's value).
 */
export function timeBucketLabelOf(
  dimension: TimeDimension,
  text: string,
  windowFirstDay?: string,
): string | undefined {
  const wall = wallTimeOf(text)
  return wall ? timeBucketLabel(dimension, wall, windowFirstDay) : undefined
}

/**
 * The most buckets of `dimension` a window of `days` whole days can hold: an hour 25 times a day (a day of a
 * clock change has 25), weeks, months and years counting the part-periods at both ends. A dimension that is
 * not a time gets the hourly count, the most any series of the window can hold.
 */
export function bucketsAtMost(dimension: string, days: number): number {
  switch (dimension) {
    case 'DATE':
      return days
    case 'WEEK':
      return Math.floor(days / 7) + 2
    case 'MONTH':
      return Math.floor(days / 28) + 2
    case 'YEAR':
      return Math.floor(days / 365) + 2
    default:
      return 25 * days
  }
}

/**
 * Refuses (502) a provider's series of more entries than a window of `days` whole days holds buckets of
 * `dimension` (bucketsAtMost): such a series is not the provider's. Each entry became a metric of the report,
 * and an api_url of a connection's creator answering a series of 990,000 entries for a week held the event
 * loop for 2 s (Mixpanel; Amplitude's xValues read the same way).
 */
export function checkSeriesLength(provider: string, entries: number, dimension: string, days: number): void {
  if (entries > bucketsAtMost(dimension, days)) {
    throw new ProviderError(
      502,
      `${provider} answered a series of ${entries} periods for a window of ${days} days; not read`,
    )
  }
}

/**
 * Calendar days in a time zone, as Google's report APIs count them: GA4 in the property's reporting time
 * zone (googleapis/googleapis@5bb0518f:google/analytics/data/v1beta/data.proto, DateRange), YouTube in Pacific Time (see emulators/youtube/README.md).
 * The emulators' own copy: they stand alone.
 */
import { utc } from '../kit/zones.js'

export function dayIn(instant: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
    .formatToParts(new Date(instant))
    .filter((p) => p.type !== 'literal')
    .map((p) => p.value)
  return parts.join('-')
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  return new Date(utc(y, m - 1, d) + days * 86_400_000).toISOString().slice(0, 10)
}

/** A real calendar day in YYYY-MM-DD form (2024-02-30 is not). */
export function isCalendarDay(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!m) return false
  const date = new Date(utc(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3])
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value })
    return true
  } catch {
    return false
  }
}

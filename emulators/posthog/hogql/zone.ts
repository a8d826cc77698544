import { instantOfWall, offsetAt } from '../../kit/zones.js'

/**
 * The project's time zone, as HogQL uses it. PostHog runs every HogQL query in the team's `timezone`: it
 * prints DateTime fields as `toTimeZone(events.timestamp, '<team tz>')` and date-time constants as
 * `toDateTime64('…', 6, '<team tz>')`, so `toDate`, `toStartOfDay` and `toStartOfHour` cut days and hours
 * in that zone, a date-time string without an offset is read in it, and results carry its offset
 * (PostHog/posthog@master:posthog/hogql/printer.py `visit_field`/`visit_constant`; see the snapshots in
 * posthog/hogql_queries/test/__snapshots__/test_events_query_runner.ambr; the team's zone is
 * posthog/models/team/team.py `timezone`, default "UTC").
 *
 * A query runs synchronously, so the zone is held here for the length of one `withZone` call.
 */

let current = 'UTC'

export function currentZone(): string {
  return current
}

/** Runs `fn` with `zone` as the query's zone. */
export function withZone<T>(zone: string, fn: () => T): T {
  const previous = current
  current = zone
  try {
    return fn()
  } finally {
    current = previous
  }
}

/** True when the IANA name is one the runtime knows (PostHog validates the team's zone the same way). */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export { instantOfWall, offsetAt }

const DAY = 86_400_000
const HOUR = 3_600_000

/** `toDate`: the local date, held as the UTC midnight of that calendar day. */
export function localDate(ms: number, zone: string): number {
  const wall = ms + offsetAt(ms, zone)
  return Math.floor(wall / DAY) * DAY
}

/** `toStartOfDay`: the instant of the local midnight that starts the day holding `ms`. */
export function startOfLocalDay(ms: number, zone: string): number {
  return instantOfWall(localDate(ms, zone), zone)
}

/** `toStartOfHour`: the instant that starts the local hour holding `ms` (zones with :30 offsets differ from UTC). */
export function startOfLocalHour(ms: number, zone: string): number {
  const wall = ms + offsetAt(ms, zone)
  return instantOfWall(Math.floor(wall / HOUR) * HOUR, zone)
}

function offsetText(offsetMs: number): string {
  if (offsetMs === 0) return 'Z'
  const sign = offsetMs < 0 ? '-' : '+'
  const minutes = Math.abs(offsetMs) / 60_000
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

/**
 * A date-time as the query API's JSON shows it: the wall clock of the zone with its offset ("Z" for UTC),
 * microseconds for DateTime64 (DRF's encoder: `isoformat()` with "+00:00" written as "Z").
 */
export function formatInZone(ms: number, zone: string, micros: boolean): string {
  const offset = offsetAt(ms, zone)
  const wall = new Date(ms + offset).toISOString()
  const body = micros ? `${wall.slice(0, 23)}000` : wall.slice(0, 19)
  return `${body}${offsetText(offset)}`
}

/** `toString` of a date-time: the zone's wall clock, `YYYY-MM-DD HH:MM:SS.fff`. */
export function wallText(ms: number, zone: string): string {
  return new Date(ms + offsetAt(ms, zone)).toISOString().replace('T', ' ').slice(0, 23)
}

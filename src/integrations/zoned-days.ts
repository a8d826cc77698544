import { badRequest } from '../errors.js'
import { addDays, dayIn, zonedStart } from './zones.js'

const DAY_MS = 86_400_000

/** A report window of whole days of a zone: its first day, the day after its last, and their instants. */
export interface ZonedDayWindow {
  readonly startDay: string
  /** Exclusive: the day after the window's last. */
  readonly endDay: string
  readonly startAt: Date
  readonly endAt: Date
}

/**
 * The day a `start_gte`/`end_lt` bound names in a provider that counts whole days of `zone`: a midnight of
 * that zone, or a plain date (UTC midnight, as dates in queries are read); anything else is a 400.
 */
function dayOfBound(provider: string, name: string, ms: number, zone: string): string {
  const zoned = dayIn(ms, zone)
  if (zonedStart(zoned, zone).getTime() === ms) return zoned
  if (ms % DAY_MS === 0) return new Date(ms).toISOString().slice(0, 10)
  throw badRequest(
    `${name}: ${provider} reports whole days of the project's time zone (${zone}); give a date (YYYY-MM-DD)`,
  )
}

/**
 * The window of a report counted in whole days of `zone` (Mixpanel's Query API, Amplitude's Dashboard
 * REST): from `start_gte` (default: the 7 days before `end_lt`) to `end_lt` (default: today in the zone, as of
 * `nowMs`).
 */
export function zonedDayWindow(
  provider: string,
  bounds: { readonly start_gte?: unknown; readonly end_lt?: unknown },
  zone: string,
  nowMs: number,
): ZonedDayWindow {
  const endDay =
    bounds.end_lt instanceof Date
      ? dayOfBound(provider, 'end_lt', bounds.end_lt.getTime(), zone)
      : dayIn(nowMs, zone)
  const startDay =
    bounds.start_gte instanceof Date
      ? dayOfBound(provider, 'start_gte', bounds.start_gte.getTime(), zone)
      : addDays(endDay, -7)
  if (endDay <= startDay) throw badRequest('end_lt must be after start_gte')
  return { startDay, endDay, startAt: zonedStart(startDay, zone), endAt: zonedStart(endDay, zone) }
}

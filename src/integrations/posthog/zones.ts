import { instantOfWall, utcMs } from '../zones.js'

/**
 * Instants of a PostHog project's wall clock. HogQL cuts days and hours in the project's time zone (the
 * project's `timezone` setting), so a `toDate` bucket `2024-12-20` in New York runs from 05:00Z to 05:00Z
 * the next day (and is 23 or 25 hours long when daylight saving changes).
 */

const DAY_MS = 86_400_000

/** The local day `YYYY-MM-DD` of `zone` as the instants it starts and ends at. */
export function localDayRange(day: string, zone: string): { start: Date; end: Date } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return undefined
  const midnight = utcMs(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  if (Number.isNaN(midnight)) return undefined
  return {
    start: new Date(instantOfWall(midnight, zone)),
    end: new Date(instantOfWall(midnight + DAY_MS, zone)),
  }
}

const WITH_OFFSET = /(Z|[+-]\d{2}(:?\d{2})?)$/i
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/

/** A date-time from a HogQL answer: with an offset as written, without one as a wall time of `zone`. */
export function instantOf(text: string, zone: string): Date | undefined {
  const trimmed = text.trim()
  if (WITH_OFFSET.test(trimmed)) {
    const d = new Date(trimmed)
    return Number.isNaN(d.getTime()) ? undefined : d
  }
  const m = WALL_TIME.exec(trimmed)
  if (!m) return undefined
  const wall = utcMs(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? '0'),
    Math.round(Number(m[7] ?? '0') * 1000),
  )
  return Number.isNaN(wall) ? undefined : new Date(instantOfWall(wall, zone))
}

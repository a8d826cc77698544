import { offsetAt, utc } from '../../kit/zones.js'

/**
 * Site-timezone arithmetic for date ranges and time buckets, with Intl only: Plausible buckets
 * `time:*` dimensions in the site's timezone, weeks starting on Monday, months on the 1st
 * (plausible/analytics@64c93e6a:lib/plausible/stats/sql/expression.ex select_dimension: toTimeZone(timestamp,
 * site timezone), toStartOfMonth, weekstart_not_before; plausible/docs@208d58ca:docs/stats-api.md "Time
 * dimensions": reported in the site's reporting timezone).
 */

/** The zone's wall clock at an instant. */
function parts(ms: number, timeZone: string) {
  const wall = new Date(ms + offsetAt(ms, timeZone))
  return {
    y: wall.getUTCFullYear(),
    m: wall.getUTCMonth() + 1,
    d: wall.getUTCDate(),
    h: wall.getUTCHours(),
    min: wall.getUTCMinutes(),
    s: wall.getUTCSeconds(),
  }
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich). */
export function offsetMs(ms: number, timeZone: string): number {
  return offsetAt(ms, timeZone)
}

/** The instant a local wall-clock time happens in the zone. */
export function zonedToUtc(y: number, m: number, d: number, timeZone: string, h = 0, min = 0, s = 0): number {
  const guess = utc(y, m - 1, d, h, min, s)
  const first = guess - offsetMs(guess, timeZone)
  return guess - offsetMs(first, timeZone)
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

export function localDate(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone)
  return `${pad(p.y, 4)}-${pad(p.m)}-${pad(p.d)}`
}

/**
 * Plausible's bucket labels in the site's timezone. A week is labelled by its Monday, except the week
 * the range starts in, which is labelled by the range's first local date when that is later
 * (plausible/analytics@64c93e6a:lib/plausible/stats/sql/expression.ex select_dimension "time:week" uses
 * weekstart_not_before(date, query.date_range.first), lib/plausible/stats/sql/fragments.ex).
 */
export function bucketLabel(ms: number, dimension: string, timeZone: string, rangeFirstDate = ''): string {
  const p = parts(ms, timeZone)
  switch (dimension) {
    case 'time:hour':
      return `${pad(p.y, 4)}-${pad(p.m)}-${pad(p.d)} ${pad(p.h)}:00:00`
    case 'time:week': {
      const day = new Date(utc(p.y, p.m - 1, p.d))
      const monday = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000)
      const label = monday.toISOString().slice(0, 10)
      return label < rangeFirstDate ? rangeFirstDate : label
    }
    case 'time:month':
      return `${pad(p.y, 4)}-${pad(p.m)}-01`
    default:
      return `${pad(p.y, 4)}-${pad(p.m)}-${pad(p.d)}`
  }
}

/** `2024-05-01T00:00:00+02:00`: how Plausible echoes a resolved range. */
export function isoWithOffset(ms: number, timeZone: string): string {
  const off = offsetMs(ms, timeZone)
  const local = new Date(ms + off).toISOString().slice(0, 19)
  const sign = off < 0 ? '-' : '+'
  const abs = Math.abs(off) / 60_000
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

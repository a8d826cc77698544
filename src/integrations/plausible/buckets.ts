import { offsetMs, utcMs } from '../zones.js'

/**
 * The instants a Plausible time bucket covers. Plausible labels `time:*` buckets in the site's
 * timezone: `2024-05-10` (day, and a week's Monday), `2024-05-01` (month), `2024-05-10 13:00:00` (hour)
 * (plausible/analytics lib/plausible/stats/time.ex), so the bounds need the site's IANA zone.
 */

/**
 * A zone: an IANA name, or a fixed offset in ms when only the offset Plausible echoed is known
 * (Community Edition has no Sites API to tell the site's zone).
 */
export type BucketZone = string | { readonly fixedOffsetMs: number }

/** The instant a local wall-clock time happens in the zone (two passes settle DST edges). */
function zoned(y: number, m: number, d: number, h: number, zone: BucketZone): number {
  const wall = utcMs(y, m - 1, d, h)
  if (typeof zone !== 'string') return wall - zone.fixedOffsetMs
  let guess = wall
  for (let i = 0; i < 2; i++) guess = wall - offsetMs(guess, zone)
  return guess
}

/** The offset of an ISO date-time Plausible echoed (`…+02:00`, `…Z`), in ms. */
export function offsetOfIso(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  if (/Z$/.test(value)) return 0
  const m = /([+-])(\d{2}):(\d{2})$/.exec(value)
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : undefined
}

/** `[start, end)` of the bucket a label names, or undefined for a label or dimension it does not know. */
export function bucketBounds(
  dimension: string,
  label: string,
  timeZone: BucketZone,
): { start: number; end: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):00:00)?$/.exec(label)
  if (!m) return undefined
  const [y, mo, d, h] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0)]
  try {
    switch (dimension) {
      case 'time:day':
        return { start: zoned(y, mo, d, 0, timeZone), end: zoned(y, mo, d + 1, 0, timeZone) }
      case 'time:week': {
        // A week ends on the next Monday: the first week's label is the window's first date when that is
        // not a Monday (plausible/analytics lib/plausible/stats/sql/fragments.ex weekstart_not_before).
        const weekday = (new Date(utcMs(y, mo - 1, d)).getUTCDay() + 6) % 7
        return { start: zoned(y, mo, d, 0, timeZone), end: zoned(y, mo, d + 7 - weekday, 0, timeZone) }
      }
      case 'time:month':
        return { start: zoned(y, mo, 1, 0, timeZone), end: zoned(y, mo + 1, 1, 0, timeZone) }
      case 'time:hour': {
        // Until the next local hour begins: two hours for the hour the clocks repeat in autumn, which
        // Plausible groups by its local start (`toStartOfHour(toTimeZone(...))`, lib/plausible/stats/sql/
        // expression.ex), so one label counts both.
        const start = zoned(y, mo, d, h, timeZone)
        return { start, end: Math.max(start + 3_600_000, zoned(y, mo, d, h + 1, timeZone)) }
      }
      default:
        return undefined
    }
  } catch {
    return undefined
  }
}

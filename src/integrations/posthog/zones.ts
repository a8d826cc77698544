/**
 * Instants of a PostHog project's wall clock. HogQL cuts days and hours in the project's time zone (the
 * project's `timezone` setting), so a `toDate` bucket `2024-12-20` in New York runs from 05:00Z to 05:00Z
 * the next day (and is 23 or 25 hours long when daylight saving changes).
 */

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, f)
  }
  return f
}

/** True when the runtime knows this IANA zone. */
export function isKnownZone(zone: string): boolean {
  try {
    formatter(zone)
    return true
  } catch {
    return false
  }
}

/** Milliseconds from UTC to `zone`'s wall clock at the instant `ms`. */
function offsetAt(ms: number, zone: string): number {
  const parts: Record<string, number> = {}
  for (const p of formatter(zone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value)
  }
  const wall = Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day as number,
    parts.hour as number,
    parts.minute as number,
    parts.second as number,
  )
  return wall - Math.floor(ms / 1000) * 1000
}

/** The instant at which `zone`'s wall clock shows `wallMs` (a wall time written as if it were UTC). */
function instantOfWall(wallMs: number, zone: string): number {
  const first = wallMs - offsetAt(wallMs, zone)
  return wallMs - offsetAt(first, zone)
}

const DAY_MS = 86_400_000

/** The local day `YYYY-MM-DD` of `zone` as the instants it starts and ends at. */
export function localDayRange(day: string, zone: string): { start: Date; end: Date } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return undefined
  const midnight = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
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
  const wall = Date.UTC(
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

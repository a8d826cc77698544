/**
 * Calendar arithmetic in a named time zone with nothing but Intl: providers count days and hours in a
 * property's or project's zone (GA4, PostHog, Mixpanel, Amplitude, Matomo, Plausible) or in Pacific Time
 * (YouTube), and the unified report carries UTC instants. The one copy of this for every connector.
 */

const DAY_MS = 86_400_000

/**
 * `Date.UTC` for every year a Date holds: `Date.UTC` reads years 0 to 99 as 1900 to 1999, so a window
 * from `0001-01-01` was computed in 1901. Months and days overflow as they do there.
 */
export function utcMs(
  year: number,
  monthIndex: number,
  day = 1,
  hour = 0,
  minute = 0,
  second = 0,
  ms = 0,
): number {
  const date = new Date(0)
  date.setUTCFullYear(year, monthIndex, day)
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime()
}

/**
 * A calendar day as text: `YYYY-MM-DD` for years 0000 to 9999, and outside them ISO 8601's expanded form
 * with a sign and six digits (`-000001-12-31`, `+010000-01-01`), as `toISOString` writes them; a window's
 * edges can cross into those years in a zone east or west of UTC.
 */
function dayText(y: number, m: number, d: number): string {
  const year =
    y >= 0 && y <= 9999
      ? String(y).padStart(4, '0')
      : `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}`
  return `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
}

/** The UTC calendar day of `ms` (see dayText). */
function utcDayOf(ms: number): string {
  const date = new Date(ms)
  return dayText(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      // The era tells 1 BC (ISO year 0) and earlier from 1 AD on: Intl writes both as year 1, 2, …
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, f)
  }
  return f
}

export function isTimeZone(value: string): boolean {
  try {
    formatterFor(value)
    return true
  } catch {
    return false
  }
}

export interface Wall {
  y: number
  m: number
  d: number
  h: number
  min: number
  s: number
}

function wallClock(instant: number, timeZone: string): Wall {
  const parts: Record<string, number> = {}
  let beforeChrist = false
  for (const p of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (p.type === 'era') beforeChrist = p.value === 'BC'
    else if (p.type !== 'literal') parts[p.type] = Number(p.value)
  }
  const year = parts.year ?? 0
  return {
    // ISO 8601 years, as Date counts them: 1 BC is year 0, 2 BC year -1.
    y: beforeChrist ? 1 - year : year,
    m: parts.month ?? 1,
    d: parts.day ?? 1,
    h: parts.hour ?? 0,
    min: parts.minute ?? 0,
    s: parts.second ?? 0,
  }
}

/** The wall clock of `timeZone` at `instant`: year, month (1-12), day, hour, minute, second. */
export function wallClockIn(instant: number, timeZone: string): Readonly<Wall> {
  return wallClock(instant, timeZone)
}

/** The zone's offset from UTC at `instant`, in ms (negative west of Greenwich). */
export function offsetMs(instant: number, timeZone: string): number {
  const w = wallClock(instant, timeZone)
  const asUtc = utcMs(w.y, w.m - 1, w.d, w.h, w.min, w.s)
  return asUtc - Math.floor(instant / 1000) * 1000
}

/** The instant at which `timeZone`'s wall clock shows `wallMs` (a wall time written as if it were UTC). */
export function instantOfWall(wallMs: number, timeZone: string): number {
  // Two passes settle the offset across a daylight-saving change.
  const first = wallMs - offsetMs(wallMs, timeZone)
  return wallMs - offsetMs(first, timeZone)
}

/** `YYYY-MM-DD`, or a year in ISO 8601's expanded form (`+010000-01-01`), as dayIn writes days. */
const DAY = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})$/

function parseDay(day: string): [number, number, number] {
  const m = DAY.exec(day)
  if (!m) throw new Error(`not a YYYY-MM-DD day: ${day}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** The UTC instant at which `day` (YYYY-MM-DD) plus `hour` hours starts in `timeZone`. */
export function zonedStart(day: string, timeZone: string, hour = 0): Date {
  const [y, m, d] = parseDay(day)
  return new Date(instantOfWall(utcMs(y, m - 1, d, hour), timeZone))
}

/** The calendar day (YYYY-MM-DD) that `instant` falls on in `timeZone`. */
export function dayIn(instant: number, timeZone: string): string {
  const w = wallClock(instant, timeZone)
  return dayText(w.y, w.m, w.d)
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = parseDay(day)
  return utcDayOf(utcMs(y, m - 1, d) + days * DAY_MS)
}

export function daysBetween(from: string, to: string): number {
  const [y1, m1, d1] = parseDay(from)
  const [y2, m2, d2] = parseDay(to)
  return Math.round((utcMs(y2, m2 - 1, d2) - utcMs(y1, m1 - 1, d1)) / DAY_MS)
}

/** Whole seconds from `now` until the next midnight in `timeZone` (at least 1). */
export function secondsUntilMidnightIn(timeZone: string, now: number = Date.now()): number {
  const next = zonedStart(addDays(dayIn(now, timeZone), 1), timeZone).getTime()
  return Math.max(1, Math.ceil((next - now) / 1000))
}

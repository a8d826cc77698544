/**
 * Calendar days of a provider project's time zone, with nothing but Intl. Mixpanel, Amplitude and PostHog
 * compute reports in the project's zone (see their emulators for the citations). The emulators' one copy:
 * they keep it apart from the connectors' src/integrations/zones.ts, so the two cannot share a mistake.
 */
const DAY_MS = 86_400_000
const formats = new Map<string, Intl.DateTimeFormat>()

function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      // Intl writes 1 BC (ISO year 0) as year 1: the era tells them apart.
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formats.set(zone, f)
  }
  return f
}

/**
 * `Date.UTC` for every year: `Date.UTC` reads years 0 to 99 as 1900 to 1999. Not a provider rule, JavaScript's
 * calendar arithmetic: the providers count days in the IANA zones of the tz database
 * (https://www.iana.org/time-zones) on the proleptic Gregorian calendar of ISO 8601, which has years 0-99.
 */
export function utc(year: number, monthIndex: number, day = 1, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0)
  date.setUTCFullYear(year, monthIndex, day)
  date.setUTCHours(hour, minute, second, 0)
  return date.getTime()
}

const offsets = new Map<string, number>()
/** Offsets change on quarter-hour boundaries at most, so one lookup serves a quarter hour (HogQL scans). */
const OFFSET_MEMO_STEP = 15 * 60_000

/** The zone's offset from UTC at `instant`, in ms. */
export function offsetAt(instant: number, zone: string): number {
  if (zone === 'UTC') return 0
  const key = `${zone}|${Math.floor(instant / OFFSET_MEMO_STEP)}`
  const known = offsets.get(key)
  if (known !== undefined) return known
  const p: Record<string, number> = {}
  let beforeChrist = false
  for (const part of format(zone).formatToParts(new Date(instant))) {
    if (part.type === 'era') beforeChrist = part.value === 'BC'
    else if (part.type !== 'literal') p[part.type] = Number(part.value)
  }
  const year = p.year ?? 1970
  const wall = utc(
    beforeChrist ? 1 - year : year,
    (p.month ?? 1) - 1,
    p.day ?? 1,
    p.hour ?? 0,
    p.minute ?? 0,
    p.second ?? 0,
  )
  const offset = wall - Math.floor(instant / 1000) * 1000
  if (offsets.size > 100_000) offsets.clear()
  offsets.set(key, offset)
  return offset
}

/** The wall-clock time of `instant` in `zone`, written as if it were UTC (how pre-2023 projects store `time`). */
export const wallClockMs = (instant: number, zone: string) => instant + offsetAt(instant, zone)

/** The instant at which a wall-clock time (as UTC ms) happens in `zone`. */
export function instantOfWall(wall: number, zone: string): number {
  let guess = wall - offsetAt(wall, zone)
  guess = wall - offsetAt(guess, zone)
  return guess
}

/** The instant `YYYY-MM-DD` starts in `zone`. */
export const dayStart = (day: string, zone: string) => instantOfWall(Date.parse(`${day}T00:00:00Z`), zone)

/** The wall-clock ISO text (`YYYY-MM-DDTHH:MM:SS.sssZ`-shaped) of `instant` in `zone`. */
export const wallIso = (instant: number, zone: string) => new Date(wallClockMs(instant, zone)).toISOString()

export const nextDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)

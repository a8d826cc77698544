/**
 * Site-calendar helpers: Matomo archives a visit on the day of its last action in the site's timezone
 * (matomo-org/matomo@f09912cb:core/DataAccess/LogAggregator.php VISIT_DATETIME_FIELD =
 * 'visit_last_action_time', bounded by the period's start and end in the site's timezone);
 * timezones are IANA names or Matomo's manual `UTC±h` offsets (plugins/SitesManager/API.php
 * getTimezonesList).
 */

import { offsetAt } from '../kit/zones.js'

const formatters = new Map<string, Intl.DateTimeFormat>()

function offsetHours(timezone: string): number | undefined {
  const m = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone)
  return m ? Number(m[1] ?? 0) : undefined
}

/** `YYYY-MM-DD` of a unix time (seconds) in an IANA zone or a Matomo `UTC±h` zone. */
export function localDay(seconds: number, timezone: string): string {
  const manual = offsetHours(timezone)
  if (manual !== undefined) return new Date((seconds + manual * 3600) * 1000).toISOString().slice(0, 10)
  let f = formatters.get(timezone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
    formatters.set(timezone, f)
  }
  return f.format(new Date(seconds * 1000))
}

export function isValidTimezone(timezone: string): boolean {
  if (offsetHours(timezone) !== undefined) return true
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone })
    return true
  } catch {
    return false
  }
}

const DAY_MS = 86_400_000
export const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)

export const isDay = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))

/**
 * A unix time as Live writes an action's `timestamp`: the site's wall clock read as if it were UTC, that
 * is the UTC time plus the site's offset (matomo-org/matomo@f09912cb:plugins/Actions/VisitorDetails.php
 * extendActionDetails, Date::factory(server_time, site timezone)->getTimestamp(); core/Date.php
 * adjustForTimezone; reported as matomo-org/matomo#22720). Visit timestamps stay UTC.
 */
export function siteWallSeconds(seconds: number, timezone: string): number {
  const manual = offsetHours(timezone)
  if (manual !== undefined) return seconds + manual * 3600
  return seconds + offsetAt(seconds * 1000, timezone) / 1000
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const pad = (n: number) => String(n).padStart(2, '0')

/**
 * The local strings Live writes, in English for a user on the default 24-hour clock, from a site
 * wall-clock time (siteWallSeconds): Date::getLocalized with the Intl plugin's patterns
 * (matomo-org/matomo@f09912cb:plugins/Intl/lang/en.json Format_DateTime_Short "MMM d, y {time}",
 * Format_Date_Long "EEEE, MMMM d, y", Format_Time_24 "HH:mm:ss", Month_Short_N / Month_Long_N /
 * Day_Long_N; plugins/Intl/DateTimeFormatProvider.php; core/Date.php formatToken: `d` is the day
 * without a leading zero, `y` the four-digit year; LanguagesManager use_12_hour_clock defaults to 0).
 */
export const prettyTime = {
  /** Date::DATETIME_FORMAT_SHORT, an action's `serverTimePretty`: `Oct 27, 2024 02:40:00`. */
  dateTimeShort(wall: number): string {
    const d = new Date(wall * 1000)
    return `${MONTHS[d.getUTCMonth()]?.slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${prettyTime.time(wall)}`
  },
  /** Date::DATE_FORMAT_LONG, a visit's `serverDatePretty`: `Sunday, October 27, 2024`. */
  dateLong(wall: number): string {
    const d = new Date(wall * 1000)
    return `${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`
  },
  /** Date::TIME_FORMAT, a visit's `serverTimePretty`: `02:40:00`. */
  time(wall: number): string {
    const d = new Date(wall * 1000)
    return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  },
}

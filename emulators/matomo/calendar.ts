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

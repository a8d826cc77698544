import { instantOfWall, offsetMs } from '../zones.js'

/**
 * The UTC instant at which a calendar day starts in a Matomo site timezone: an IANA name, or Matomo's
 * manual offsets such as `UTC+5.5`. Unknown zones are read as UTC rather than failing a report.
 */
export function startOfDayIn(day: string, timezone: string | undefined): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const utc = Date.UTC(y, m - 1, d)
  const manual = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone ?? 'UTC')
  if (manual) return new Date(utc - Number(manual[1] ?? 0) * 3_600_000)
  try {
    // Two passes settle days whose midnight falls next to a DST change.
    let guess = utc
    for (let i = 0; i < 2; i++) guess = utc - offsetMs(guess, timezone as string)
    return new Date(guess)
  } catch {
    return new Date(utc)
  }
}

/**
 * The instant a Live action `timestamp` stands for. Unlike a visit's first/lastActionTimestamp, Live
 * writes an action's time as the site's wall clock read as if it were UTC (UTC plus the site's offset:
 * matomo-org/matomo@f09912cb:plugins/Actions/VisitorDetails.php extendActionDetails, core/Date.php
 * factory with a timezone; reported as matomo-org/matomo#22720). In the hour a daylight-saving change
 * repeats, the wall clock is ambiguous and the later reading is taken.
 */
export function instantOfSiteWall(seconds: number, timezone: string | undefined): Date {
  const manual = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone ?? 'UTC')
  if (manual) return new Date((seconds - Number(manual[1] ?? 0) * 3600) * 1000)
  try {
    return new Date(instantOfWall(seconds * 1000, timezone as string))
  } catch {
    return new Date(seconds * 1000)
  }
}

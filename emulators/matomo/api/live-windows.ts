import { dayStart } from '../../kit/zones.js'
import type { MatomoVisitRecord } from '../state.js'

/**
 * How Live.getLastVisitsDetails pages visits (matomo-org/matomo@f09912cb:plugins/Live/Model.php
 * queryLogVisits, splitDatesIntoMultipleQueries, makeLogVisitsQueryString; plugins/Live/API.php
 * loadLastVisitsDetailsFromDatabase asks for one visit more to learn whether there are more).
 *
 * When a limit is set and the date bounds span more than a day, Matomo does not run one SQL query but
 * a series over time windows (newest first: the future past now, the 7 days before, then, only without
 * an offset, 30 days and a year, then everything older; oldest first mirrors it), each asked for the
 * visits still missing. An offset is carried from window to window: when a window holds fewer visits
 * than the offset, Matomo counts them with a query that keeps the same limit and subtracts that count,
 * so a window holding more visits than the limit but fewer than the offset is undercounted and the next
 * window skips visits that belong on the page. A caller paging with filter_offset silently misses them
 * (reported as matomo-org/matomo#16394); filter_offset=0 always answers the newest visits exactly.
 */

/** Unix seconds bounds of a Live query; undefined is open. */
export interface LiveBounds {
  readonly start?: number
  readonly end?: number
}

const DAY_S = 86_400
/** Date::FIRST_WEBSITE_TIMESTAMP (matomo-org/matomo@f09912cb:core/Date.php): 1991-08-06. */
const FIRST_WEBSITE_S = Date.parse('1991-08-06T00:00:00Z') / 1000
/** Date::subYear / addPeriod(1, 'year'): a calendar year; 365 days is close enough for the windows. */
const YEAR_S = 365 * DAY_S

/** The instant a day starts in an IANA zone or a Matomo `UTC±h` zone. */
function startOfDayS(day: string, timezone: string): number {
  const manual = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone)
  if (manual) return Date.parse(`${day}T00:00:00Z`) / 1000 - Number(manual[1] ?? 0) * 3600
  return Math.floor(dayStart(day, timezone) / 1000)
}

/**
 * The bounds Model::getStartAndEndDate gives a `period`/`date` query: from the first day's start in the
 * site's timezone (at most now), to the start of the day after the last (at most a second past now),
 * or open-ended when the date names today, `last…`/`previous…` or ends today.
 */
export function liveBounds(
  first: string,
  last: string,
  date: string,
  today: string,
  timezone: string,
  nowS: number,
): LiveBounds {
  const start = Math.min(startOfDayS(first, timezone), nowS)
  const open = /now|today|yesterdaySameTime|last|previous/.test(date) || last === today
  if (open) return { start }
  const end = startOfDayS(last, timezone) + DAY_S
  return { start, end: end > nowS ? nowS + 1 : end }
}

type Window = readonly [number | undefined, number | undefined]

function windowsOf(bounds: LiveBounds, limit: number, offset: number, asc: boolean, nowS: number): Window[] {
  const { start, end } = bounds
  let vEnd = end ?? nowS + DAY_S
  let vStart = start ?? FIRST_WEBSITE_S
  if (!limit || !(vStart + DAY_S < vEnd)) return [[start, end]]
  const out: Window[] = []
  if (!asc) {
    vEnd -= DAY_S
    out.push([vEnd, end])
    if (vStart + 7 * DAY_S < vEnd) {
      out.push([vEnd - 7 * DAY_S, vEnd - 1])
      vEnd -= 7 * DAY_S
    }
    if (!offset) {
      for (const span of [30 * DAY_S, YEAR_S]) {
        if (vStart + span < vEnd) {
          out.push([vEnd - span, vEnd - 1])
          vEnd -= span
        }
      }
    }
    if (vStart < vEnd) out.push([start, vEnd - 1])
  } else {
    out.push([vStart, vStart + DAY_S - 1])
    vStart += DAY_S
    if (vStart + 7 * DAY_S < vEnd) {
      out.push([vStart, vStart + 7 * DAY_S - 1])
      vStart += 7 * DAY_S
    }
    if (!offset) {
      for (const span of [30 * DAY_S, YEAR_S]) {
        if (vStart + span < vEnd) {
          out.push([vStart, vStart + span - 1])
          vStart += span
        }
      }
    }
    if (vStart < vEnd) out.push([vStart, end])
  }
  return out
}

/**
 * The page Live answers from `ordered` (the visits the query selects, in the requested order) for
 * `filter_offset`/`filter_limit` (-1 for all), with Matomo's windowed offset arithmetic.
 */
export function livePage(
  ordered: readonly MatomoVisitRecord[],
  bounds: LiveBounds,
  filterOffset: number,
  filterLimit: number,
  asc: boolean,
  nowS: number,
): MatomoVisitRecord[] {
  // One visit more than asked, to tell whether there are more (checkforMoreEntries).
  const limit = filterLimit > -1 ? filterLimit + 1 : filterLimit
  let offset = Math.max(0, filterOffset)
  const take = (rows: readonly MatomoVisitRecord[], from: number, count: number) =>
    count >= 1 ? rows.slice(from, from + count) : rows.slice(from)
  let found: MatomoVisitRecord[] = []
  for (const [a, b] of windowsOf(bounds, limit, offset, asc, nowS)) {
    const inWindow = ordered.filter(
      (v) =>
        (a === undefined || v.lastActionTimestamp >= a) && (b === undefined || v.lastActionTimestamp <= b),
    )
    const windowLimit = limit > -1 ? limit - found.length : limit
    const windowOffset = offset && found.length > 0 ? 0 : offset
    const visits = take(inWindow, windowOffset, windowLimit)
    if (offset && visits.length === 0) {
      // Counts the skipped visits with the same limit: at most windowLimit of them.
      const counted = take(inWindow, 0, windowLimit)
      if (counted.length > 0) offset -= counted.length
      continue
    }
    found = found.concat(visits)
    if (limit > 0 && found.length >= limit) {
      found = found.slice(0, limit)
      break
    }
  }
  if (filterLimit > -1 && found.length === limit) found.pop()
  return found
}

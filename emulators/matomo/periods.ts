import { utc } from '../kit/zones.js'
import { addDays, isDay, localDay } from './calendar.js'
import { MatomoApiError } from './errors.js'

export type Period = 'day' | 'week' | 'month' | 'year' | 'range'
const PERIODS: readonly string[] = ['day', 'week', 'month', 'year', 'range']

export interface PeriodBucket {
  /** The label Matomo keys a multi-period answer by. */
  readonly label: string
  readonly first: string
  readonly last: string
}

/** matomo-org/matomo@f09912cb:core/Period/Factory.php, lang/en.json General_ExceptionInvalidPeriod. */
export function parsePeriod(value: string | undefined): Period {
  if (value === undefined || value === '') throw new MatomoApiError("Please specify a value for 'period'.")
  if (!PERIODS.includes(value)) {
    throw new MatomoApiError(
      `The period '${value ?? ''}' is not supported. Try any of the following instead: day, week, month, year, range`,
    )
  }
  return value as Period
}

/** The earliest date Matomo takes (matomo-org/matomo@f09912cb:core/Date.php FIRST_WEBSITE_TIMESTAMP). */
const FIRST_WEBSITE_DAY = '1991-08-06'

/**
 * `today`, `yesterday` or `YYYY-MM-DD` in the site's calendar, with Matomo's messages
 * (matomo-org/matomo@f09912cb:core/Date.php factory, getInvalidDateFormatException;
 * lang/en.json General_ExceptionInvalidDateFormat, General_ExceptionInvalidDateBeforeFirstWebsite).
 */
function resolveDay(value: string, today: string): string {
  if (value === 'today' || value === 'now') return today
  if (value === 'yesterday') return addDays(today, -1)
  if (!isDay(value))
    throw new MatomoApiError(
      `Date format must be: YYYY-MM-DD, or 'today' or 'yesterday' or any keyword supported by the strtotime function (see http://php.net/strtotime for more information): '${value}'`,
    )
  if (value < FIRST_WEBSITE_DAY)
    throw new MatomoApiError(
      `The date '${value}' is a date before first website was online. Try date that's after Aug 6, 1991 (timestamp 681436800).`,
    )
  return value
}

/** `date('Y-12-31', strtotime('+10 year', now))`: Range::getMaxAllowedEndTimestamp. */
const maxAllowedEndDay = () => `${new Date().getUTCFullYear() + 10}-12-31`
const minDay = (a: string, b: string) => (a < b ? a : b)

/** lang/en.json General_ExceptionInvalidDateRange, as core/Period/Range.php fills it in. */
const invalidRange = (date: string) =>
  new MatomoApiError(
    `The date '${date}' is not a correct date range. It should have the following format:  'lastN', 'previousN', 'YYYY-MM-DD,YYYY-MM-DD'.`,
  )

/**
 * Date::addPeriod: days and weeks by calendar, months keeping the day of month where it exists
 * (matomo-org/matomo@f09912cb:core/Date.php addPeriod).
 */
function addPeriod(day: string, n: number, period: Exclude<Period, 'range'>): string {
  if (period === 'day') return addDays(day, n)
  if (period === 'week') return addDays(day, 7 * n)
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const months = period === 'year' ? 12 * n : n
  const first = new Date(utc(y, m - 1 + months, 1))
  const lastDay = new Date(utc(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate()
  first.setUTCDate(Math.min(d, lastDay))
  return first.toISOString().slice(0, 10)
}

/** lastN is capped per period (matomo-org/matomo@f09912cb:core/Period/Range.php getMaxN). */
const MAX_N: Readonly<Record<Exclude<Period, 'range'>, number>> = {
  day: 5 * 365,
  week: 10 * 52,
  month: 10 * 12,
  year: 10,
}

function bucketOf(period: Exclude<Period, 'range'>, day: string): PeriodBucket {
  switch (period) {
    case 'day':
      return { label: day, first: day, last: day }
    case 'week': {
      const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7
      const first = addDays(day, -weekday)
      const last = addDays(first, 6)
      return { label: `${first},${last}`, first, last }
    }
    case 'month': {
      const first = `${day.slice(0, 7)}-01`
      const next = new Date(`${first}T00:00:00Z`)
      next.setUTCMonth(next.getUTCMonth() + 1)
      return { label: day.slice(0, 7), first, last: addDays(next.toISOString().slice(0, 10), -1) }
    }
    case 'year':
      return { label: day.slice(0, 4), first: `${day.slice(0, 4)}-01-01`, last: `${day.slice(0, 4)}-12-31` }
  }
}

/**
 * Week buckets run Monday to Sunday (matomo-org/matomo@f09912cb:core/Period/Week.php generate); month
 * and year are calendar ones; a multi-period answer covers every whole period touching the range
 * (core/Period/Range.php fillArraySubPeriods) and is keyed by range string for weeks, `Y-m` for months,
 * `Y` for years (core/Archive/DataTableFactory.php prettifyIndexLabel).
 *
 * The buckets a `period`/`date` pair asks for, and whether the answer is a multi-period object (keyed by
 * label) rather than one record: `date=a,b` or `lastN` with any period but `range`.
 */
export function bucketsOf(
  period: Period,
  date: string | undefined,
  timezone: string,
): { buckets: PeriodBucket[]; multi: boolean } {
  if (!date) throw new MatomoApiError("Please specify a value for 'date'.")
  const today = localDay(Math.floor(Date.now() / 1000), timezone)
  let first: string
  let last: string
  let multi = false
  // lastN ends today, previousN one period earlier; both reach N - 1 periods back, in periods of the
  // request (days for a range) (matomo-org/matomo@f09912cb:core/Period/Range.php setDefaultEndDate and
  // the lastN branch); `a,b` takes a date or last week/month/year first, and today, yesterday or a date
  // last (Range::parseDateRange); anything else, a single date for period=range included, is no range.
  const lastN = /^(last|previous)(\d*)$/.exec(date)
  const unit: Exclude<Period, 'range'> = period === 'range' ? 'day' : period
  if (lastN) {
    const n = Math.max(0, Math.min(Number(lastN[2] || 0), MAX_N[unit]) - 1)
    last = lastN[1] === 'previous' ? addPeriod(today, -1, unit) : today
    first = addPeriod(last, -n, unit)
    multi = true
  } else if (date.includes(',')) {
    const [a, b, extra] = date.split(',')
    if (extra !== undefined || !a || !b || !/^\d{4}-\d{1,2}-\d{1,2}$/.test(a)) throw invalidRange(date)
    first = resolveDay(a, today)
    // A range ends at the latest on December 31st ten years from now; a later end is moved back to it
    // (matomo-org/matomo@f09912cb:core/Period/Range.php generate, getMaxAllowedEndTimestamp, which reads
    // `now` in UTC, the zone Matomo runs PHP in: core/bootstrap.php).
    last = minDay(resolveDay(b, today), maxAllowedEndDay())
    // An empty range has no start (core/Period/Range.php getDateStart).
    if (first > last) throw new MatomoApiError('Specified date range is invalid.')
    multi = true
  } else {
    if (period === 'range') throw invalidRange(date)
    first = resolveDay(date, today)
    last = first
  }
  if (period === 'range') {
    return { buckets: [{ label: `${first},${last}`, first, last }], multi: false }
  }
  const buckets: PeriodBucket[] = []
  for (let day = first; day <= last; ) {
    const b = bucketOf(period, day)
    buckets.push(b)
    day = addDays(b.last, 1)
  }
  if (!multi) return { buckets: [bucketOf(period, first)], multi: false }
  return { buckets, multi }
}

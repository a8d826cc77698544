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
  if (!value || !PERIODS.includes(value)) {
    throw new MatomoApiError(
      `The period '${value ?? ''}' is not supported. Try any of the following instead: day, week, month, year, range`,
    )
  }
  return value as Period
}

/** `today`, `yesterday` or `YYYY-MM-DD` in the site's calendar. */
function resolveDay(value: string, today: string): string {
  if (value === 'today' || value === 'now') return today
  if (value === 'yesterday') return addDays(today, -1)
  if (!isDay(value))
    throw new MatomoApiError(
      `Date format must be: YYYY-MM-DD, or 'today' or 'yesterday' or any keyword supported by the strtotime function (see http://php.net/strtotime for more information): ${value}`,
    )
  if (value < '1991-08-06') throw new MatomoApiError(`The date '${value}' is not a correct date.`)
  return value
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
  const lastN = /^(last|previous)(\d+)$/.exec(date)
  if (lastN) {
    const n = Number(lastN[2])
    last = lastN[1] === 'previous' ? addDays(today, -1) : today
    first = addDays(last, -(n - 1))
    multi = true
  } else if (date.includes(',')) {
    const [a, b, extra] = date.split(',')
    if (extra !== undefined || !a || !b)
      throw new MatomoApiError(`The date '${date}' is not a correct date range.`)
    first = resolveDay(a, today)
    last = resolveDay(b, today)
    if (first > last)
      throw new MatomoApiError(`The date range '${date}' is not valid: its start is after its end.`)
    multi = true
  } else {
    first = resolveDay(date, today)
    last = first
  }
  if (period === 'range') {
    if (!date.includes(',') && !lastN) {
      throw new MatomoApiError(
        `The date '${date}' is not a correct date range for period=range (use YYYY-MM-DD,YYYY-MM-DD).`,
      )
    }
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

import { badRequest } from '../../errors.js'
import type { ListQuery } from '../types.js'
import { addDays, daysBetween } from '../zones.js'

/** Days asked for, inclusive, as YYYY-MM-DD in the provider's reporting time zone; undefined = default. */
export interface RequestedDays {
  readonly startDate?: string
  readonly endDate?: string
}

/** Google's reports default to the last 28 days, today included (GA4's UI and `28daysAgo`). */
export const DEFAULT_REPORT_DAYS = 28

function wholeDay(name: string, value: Date, provider: string, zone: string): string {
  const iso = value.toISOString()
  if (!iso.endsWith('T00:00:00.000Z')) {
    throw badRequest(
      `${name}: ${provider} reports whole days in ${zone}; give a date (YYYY-MM-DD), not '${iso}'`,
    )
  }
  return iso.slice(0, 10)
}

/**
 * `start_gte`/`end_lt` as the provider's inclusive day range. Google reports whole calendar days in one
 * time zone, so a date is read as that zone's calendar day and anything finer than a day is refused
 * rather than silently widened; `end_lt` is exclusive, Google's `endDate` inclusive.
 */
export function requestedDays(query: ListQuery, provider: string, zone: string): RequestedDays {
  const start = query.filters.start_gte
  const end = query.filters.end_lt
  const startDate = start instanceof Date ? wholeDay('start_gte', start, provider, zone) : undefined
  const endDate = end instanceof Date ? addDays(wholeDay('end_lt', end, provider, zone), -1) : undefined
  if (startDate && endDate && daysBetween(startDate, endDate) < 0) {
    throw badRequest('end_lt must be later than start_gte')
  }
  return { ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) }
}

/** Fills the defaults in: the range ends today, and starts 28 days before its end. */
export function resolveDays(days: RequestedDays, today: string): { startDate: string; endDate: string } {
  const endDate = days.endDate ?? today
  const startDate = days.startDate ?? addDays(endDate, -(DEFAULT_REPORT_DAYS - 1))
  if (daysBetween(startDate, endDate) < 0) {
    throw badRequest(`start_gte ${startDate} is after today (${today}) in the report's time zone`)
  }
  return { startDate, endDate }
}

/**
 * How Umami picks the time unit of a series: a unit finer than the range allows is silently replaced by
 * the smallest one allowed, and buckets come back in that unit. Server time is taken as UTC, as in
 * Umami's Docker images. Source: umami-software/umami@v3.1.0:src/lib/date.ts (`getMinimumUnit`,
 * `getAllowedUnits`) and src/lib/request.ts (`getRequestDateRange`).
 */
const UNIT_ORDER = ['minute', 'hour', 'day', 'month', 'year'] as const
export type UmamiUnit = (typeof UNIT_ORDER)[number]

function calendarMonthsBetween(startAt: number, endAt: number): number {
  const s = new Date(startAt)
  const e = new Date(endAt)
  return (e.getUTCFullYear() - s.getUTCFullYear()) * 12 + (e.getUTCMonth() - s.getUTCMonth())
}

/** date-fns `differenceInMinutes`/`differenceInDays`: whole units, truncated toward zero. */
const whole = (ms: number, unitMs: number) => Math.trunc(ms / unitMs)

export function minimumUnit(startAt: number, endAt: number): UmamiUnit {
  if (whole(endAt - startAt, 60_000) <= 60) return 'minute'
  if (whole(endAt - startAt, 86_400_000) <= 30) return 'hour'
  const months = calendarMonthsBetween(startAt, endAt)
  if (months <= 7) return 'day'
  if (months <= 24) return 'month'
  return 'year'
}

/** `getAllowedUnits`: the minimum unit and coarser ones; month stays allowed however long the range. */
export function allowedUnits(startAt: number, endAt: number): readonly UmamiUnit[] {
  const min = minimumUnit(startAt, endAt)
  return UNIT_ORDER.slice(UNIT_ORDER.indexOf(min === 'year' ? 'month' : min))
}

/** The unit Umami actually groups by for the unit asked (or none asked). */
export function effectiveUnit(asked: string | undefined, startAt: number, endAt: number): UmamiUnit {
  const allowed = allowedUnits(startAt, endAt)
  return asked !== undefined && (allowed as readonly string[]).includes(asked)
    ? (asked as UmamiUnit)
    : minimumUnit(startAt, endAt)
}

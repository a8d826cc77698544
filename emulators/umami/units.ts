/**
 * How Umami picks the time unit of a series: a unit finer than the range allows is silently replaced by
 * the smallest one allowed, and buckets come back in that unit. Server time is taken as UTC, as in
 * Umami's Docker images. Source: umami-software/umami@v3.1.0:src/lib/date.ts (`getMinimumUnit`,
 * `getAllowedUnits`) and src/lib/request.ts (`getRequestDateRange`).
 */
const UNIT_ORDER = ['minute', 'hour', 'day', 'month', 'year'] as const
export type UmamiUnit = (typeof UNIT_ORDER)[number]

/**
 * Which release's unit rules to apply. `3.1` (Umami Cloud, v3.1.0 on): hours over at most 30 whole days,
 * days over at most 7 calendar months. `3.0` (v2.x to v3.0.3, still common self-hosted): hours over at
 * most 48 whole hours, days over at most 6 calendar months (umami-software/umami@v3.0.3:src/lib/date.ts
 * and @v2.20.2:src/lib/date.ts `getMinimumUnit`; changed by e73432dd2, first released in v3.1.0).
 */
export type UmamiRelease = '3.0' | '3.1'

function calendarMonthsBetween(startAt: number, endAt: number): number {
  const s = new Date(startAt)
  const e = new Date(endAt)
  return (e.getUTCFullYear() - s.getUTCFullYear()) * 12 + (e.getUTCMonth() - s.getUTCMonth())
}

/** date-fns `differenceInMinutes`/`differenceInHours`/`differenceInDays`: whole units, truncated toward zero. */
const whole = (ms: number, unitMs: number) => Math.trunc(ms / unitMs)

export function minimumUnit(startAt: number, endAt: number, release: UmamiRelease = '3.1'): UmamiUnit {
  if (whole(endAt - startAt, 60_000) <= 60) return 'minute'
  const hourly =
    release === '3.1' ? whole(endAt - startAt, 86_400_000) <= 30 : whole(endAt - startAt, 3_600_000) <= 48
  if (hourly) return 'hour'
  const months = calendarMonthsBetween(startAt, endAt)
  if (months <= (release === '3.1' ? 7 : 6)) return 'day'
  if (months <= 24) return 'month'
  return 'year'
}

/** `getAllowedUnits`: the minimum unit and coarser ones; month stays allowed however long the range. */
export function allowedUnits(
  startAt: number,
  endAt: number,
  release: UmamiRelease = '3.1',
): readonly UmamiUnit[] {
  const min = minimumUnit(startAt, endAt, release)
  return UNIT_ORDER.slice(UNIT_ORDER.indexOf(min === 'year' ? 'month' : min))
}

/** The unit Umami actually groups by for the unit asked (or none asked). */
export function effectiveUnit(
  asked: string | undefined,
  startAt: number,
  endAt: number,
  release: UmamiRelease = '3.1',
): UmamiUnit {
  const allowed = allowedUnits(startAt, endAt, release)
  return asked !== undefined && (allowed as readonly string[]).includes(asked)
    ? (asked as UmamiUnit)
    : minimumUnit(startAt, endAt, release)
}

import type { ListQuery } from '../types.js'

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/**
 * Umami's `startAt`/`endAt` are unix milliseconds and both ends are inclusive, while the unified `end_lt`
 * excludes its instant: so `endAt` is one millisecond earlier.
 */
export function umamiRange(query: ListQuery, defaultDays: number | undefined, now = Date.now()) {
  const end = query.filters.end_lt instanceof Date ? query.filters.end_lt.getTime() : now
  const start =
    query.filters.start_gte instanceof Date
      ? query.filters.start_gte.getTime()
      : defaultDays === undefined
        ? 0
        : end - defaultDays * DAY_MS
  return { startAt: start, endAt: end - 1, start: new Date(start), end: new Date(end) }
}

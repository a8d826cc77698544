import { badRequest } from '../../errors.js'
import type { UmamiUnit } from './report-mapping.js'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** Most `/pageviews` calls one report may take (Umami Cloud allows 50 calls per 15 seconds). */
export const MAX_SERIES_CALLS = 40

/**
 * Umami replaces a unit too fine for the range with a coarser one, silently, and labels buckets in the
 * unit it used: hours only when the range spans at most 30 whole days, days only within 7 calendar months
 * (umami-software/umami@v3.1.0:src/lib/date.ts `getMinimumUnit`/`getAllowedUnits`, applied by
 * src/lib/request.ts `getRequestDateRange`). So a longer range is asked for in pieces Umami keeps in the
 * unit asked, cut on unit boundaries so no bucket spans two pieces. Months and years are never replaced.
 * `endAt` of each piece is inclusive (one millisecond before the next piece).
 */
export function seriesPieces(
  startAt: number,
  endExclusive: number,
  unit: UmamiUnit,
): { startAt: number; endAt: number }[] {
  if (unit === 'month' || unit === 'year') return [{ startAt, endAt: endExclusive - 1 }]
  const pieces: { startAt: number; endAt: number }[] = []
  let from = startAt
  while (from < endExclusive) {
    const to = Math.min(endExclusive, pieceEnd(from, unit))
    pieces.push({ startAt: from, endAt: to - 1 })
    from = to
    if (pieces.length > MAX_SERIES_CALLS) {
      throw badRequest(
        `Umami groups by ${unit} only over ${unit === 'hour' ? '30 days' : '7 calendar months'} per call; ` +
          `this range needs more than ${MAX_SERIES_CALLS} calls: shorten start_gte..end_lt or use a coarser dimension`,
      )
    }
  }
  return pieces
}

/** The next piece boundary: 30 days on from the hour `from` falls in, or 7 UTC months on from its month. */
function pieceEnd(from: number, unit: 'hour' | 'day'): number {
  if (unit === 'day') {
    const d = new Date(from)
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 7, 1)
  }
  return Math.floor(from / HOUR_MS) * HOUR_MS + 30 * DAY_MS
}

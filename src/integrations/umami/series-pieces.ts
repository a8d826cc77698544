import { badRequest } from '../../errors.js'
import { utcMs } from '../zones.js'
import type { Hosting } from './hosting.js'
import type { UmamiUnit } from './report-mapping.js'
import { DAY_MS, HOUR_MS } from './time-range.js'

/** Hours v3.1.0 keeps: at most 30 whole days. */
const CLOUD_HOUR_SPAN_MS = 30 * DAY_MS
/** Hours v2.x-v3.0.3 keep: at most 48 whole hours. */
const OLDER_HOUR_SPAN_MS = 48 * HOUR_MS

/** Most `/pageviews` calls one report may take (Umami Cloud allows 50 calls per 15 seconds). */
export const MAX_SERIES_CALLS = 40

/**
 * Umami replaces a unit too fine for the range with a coarser one, silently, and labels buckets in the
 * unit it used. Where the line falls depends on the release: v3.1.0 on (Umami Cloud) keeps hours over at
 * most 30 whole days and days over at most 7 calendar months; v2.x to v3.0.3, still common self-hosted,
 * keep hours over at most 48 hours and days over at most 6 calendar months
 * (umami-software/umami@v3.1.0 and @v3.0.3:src/lib/date.ts `getMinimumUnit`/`getAllowedUnits`, applied by
 * src/lib/request.ts `getRequestDateRange`). A self-hosted server's release is unknown, so it is asked
 * in pieces the older rules keep; Cloud in pieces v3.1.0 keeps. Day pieces are 6 calendar months either
 * way, which also leaves a month of slack for a server clock outside UTC. Pieces are cut on unit
 * boundaries so no bucket spans two. Months and years are never replaced. `endAt` of each piece is
 * inclusive (one millisecond before the next piece).
 */
export function seriesPieces(
  startAt: number,
  endExclusive: number,
  unit: UmamiUnit,
  hosting: Hosting,
): { startAt: number; endAt: number }[] {
  if (unit === 'month' || unit === 'year') return [{ startAt, endAt: endExclusive - 1 }]
  const hourSpan = hosting === 'cloud' ? CLOUD_HOUR_SPAN_MS : OLDER_HOUR_SPAN_MS
  const pieces: { startAt: number; endAt: number }[] = []
  let from = startAt
  while (from < endExclusive) {
    const to = Math.min(endExclusive, pieceEnd(from, unit, hourSpan))
    pieces.push({ startAt: from, endAt: to - 1 })
    from = to
    if (pieces.length > MAX_SERIES_CALLS) {
      const span = unit === 'hour' ? (hosting === 'cloud' ? '30 days' : '48 hours') : '6 calendar months'
      throw badRequest(
        `Umami groups by ${unit} only over ${span} per call; ` +
          `this range needs more than ${MAX_SERIES_CALLS} calls: shorten start_gte..end_lt or use a coarser dimension`,
      )
    }
  }
  return pieces
}

/** The next piece boundary: `hourSpan` on from the hour `from` falls in, or 6 UTC months on from its month. */
function pieceEnd(from: number, unit: 'hour' | 'day', hourSpan: number): number {
  if (unit === 'day') {
    const d = new Date(from)
    return utcMs(d.getUTCFullYear(), d.getUTCMonth() + 6, 1)
  }
  return Math.floor(from / HOUR_MS) * HOUR_MS + hourSpan
}

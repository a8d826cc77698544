import type { HandlerContext } from '../types.js'
import { callMatomo, type MatomoParams } from './client.js'
import type { MatomoVisit } from './provider-types.js'
import { readVisitsAsOf, snapshotNow, type VisitAnchor, visitsWithin } from './visit-snapshot.js'

/** What narrows `Live.getLastVisitsDetails` at Matomo; anything finer is trimmed by the caller's `pick`. */
export type VisitParams = MatomoParams & { readonly idSite: string }

/**
 * Visits `offset` to `offset + limit` in Matomo's order. Matomo is never given an offset: over more than
 * a day it queries time windows one after the other and carries an offset across them with a count
 * capped at the limit, so a window holding more visits than the limit but fewer than the offset makes the
 * next window skip visits silently (matomo-org/matomo@f09912cb:plugins/Live/Model.php queryLogVisits,
 * splitDatesIntoMultipleQueries; matomo-org/matomo#16394). From offset 0 every window is read in full, so
 * the first `offset + limit` visits are exact; the ones before the page are dropped here.
 */
export async function fetchVisits(
  ctx: Pick<HandlerContext, 'client' | 'credentials' | 'rawParams'>,
  params: VisitParams,
  offset: number,
  limit: number,
): Promise<MatomoVisit[]> {
  const visits = await callMatomo<MatomoVisit[]>(ctx, 'Live.getLastVisitsDetails', {
    ...ctx.rawParams,
    ...params,
    filter_offset: 0,
    filter_limit: offset + limit,
  })
  return visitsWithin(visits, offset + limit).slice(offset)
}

/**
 * Reads items derived from visits (a visit's actions, or the visit itself when it passes a filter) at an
 * item offset, from the visitor log as it stood when the listing's first page was read (`asOf`, see
 * readVisitsAsOf), so pages read one after another neither repeat nor miss a visit that gets new actions
 * meanwhile; `pick` is given `asOf` too, to leave out what a visit did after it. Matomo's `filter_offset`
 * counts visits, not items, so item offset N is reached by walking visits; where each page ended (visit
 * position, items of that visit already given) is remembered in `ctx.cursors` with `asOf`, so the next
 * page starts there instead of walking again from the first visit. A page with no remembered cursor
 * starts a new listing as of now.
 *
 * Every read goes back to the listing's first visit (see fetchVisits), so a walk through visits that give
 * few items (a sparse filter) grows its reads: each round asks for as many visits again as it has passed,
 * and the visits read add up to a few times the visits walked, not their square over `pageSize`.
 */
export async function walkVisits<T>(
  ctx: HandlerContext,
  scope: string,
  params: VisitParams,
  offset: number,
  limit: number,
  pick: (visit: MatomoVisit, asOf: number) => readonly T[],
  pageSize: number,
  timezone: () => Promise<string | undefined>,
): Promise<T[]> {
  let position = 0
  let visitOffset = 0
  let skip = 0
  let asOf = snapshotNow()
  // Where the next read starts in the listing, wherever the visit now stands (readVisitsAsOf).
  let anchor: VisitAnchor | undefined
  // The latest `asOf` written on any process: it says which listing the caller is reading.
  const start = await ctx.cursors.walkStart(scope, offset, { latest: true })
  if (start.cursor !== undefined) {
    const cursor = parseWalkCursor(start.cursor)
    position = start.offset
    asOf = cursor.asOf ?? asOf
    visitOffset = cursor.visitOffset
    skip = cursor.skip
    anchor = cursor.anchor
  }
  const out: T[] = []
  let round = pageSize
  for (;;) {
    const page = await readVisitsAsOf(ctx, params, asOf, visitOffset, round, timezone, anchor)
    for (let i = 0; i < page.length; i++) {
      const items = pick(page[i] as MatomoVisit, asOf)
      for (let j = i === 0 ? skip : 0; j < items.length; j++) {
        if (position >= offset) {
          out.push(items[j] as T)
          if (out.length === limit) {
            // A visit given in full: the next page starts after it; else inside it, at its next item.
            const whole = j + 1 === items.length
            ctx.cursors.set(
              scope,
              offset + limit,
              walkCursor({
                asOf,
                visitOffset: visitOffset + i + (whole ? 1 : 0),
                skip: whole ? 0 : j + 1,
                anchor: { idVisit: String(page[i]?.idVisit), inclusive: !whole },
              }),
            )
            return out
          }
        }
        position++
      }
    }
    if (page.length < round) return out
    visitOffset += page.length
    round = Math.max(round, visitOffset)
    anchor = { idVisit: String(page[page.length - 1]?.idVisit), inclusive: false }
    skip = 0
  }
}

/** Where a listing of visits stands after a page: see walkVisits. */
export interface WalkCursor {
  /** The moment the listing is read as of (unix seconds). */
  readonly asOf: number | undefined
  /** The next visit's position in the listing, and how many of its items were given already. */
  readonly visitOffset: number
  readonly skip: number
  /** The visit the next read starts after (or at, when `skip` items of it were given already). */
  readonly anchor: VisitAnchor | undefined
}

/** `asOf:visitOffset:skip:idVisit`; the anchor is inclusive exactly when part of its visit was given. */
export const walkCursor = (c: WalkCursor): string =>
  `${c.asOf ?? ''}:${c.visitOffset}:${c.skip}:${c.anchor?.idVisit ?? ''}`

export function parseWalkCursor(text: string): WalkCursor {
  const [t, v, s, id] = text.split(':')
  const skip = Number(s) || 0
  return {
    asOf: Number(t) || undefined,
    visitOffset: Number(v) || 0,
    skip,
    anchor: id === undefined || id === '' ? undefined : { idVisit: id, inclusive: skip > 0 },
  }
}

const DAY_MS = 86_400_000
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Narrows a Live query to a time window without knowing the site's timezone: `minTimestamp` is exact
 * (Matomo compares it with the visit's last action, strictly), and the `period=range` days are widened
 * so any site timezone (and a visit running past midnight) is covered. Callers trim precisely afterwards.
 */
export function windowParams(start?: Date, end?: Date): MatomoParams {
  const out: Record<string, string | number> = {}
  if (start) out.minTimestamp = Math.floor(start.getTime() / 1000) - 1
  if (end) {
    out.period = 'range'
    out.date = `${start ? day(start.getTime() - DAY_MS) : '1992-01-01'},${day(end.getTime() + 2 * DAY_MS)}`
  }
  return out
}

/** A Matomo segment condition; values are URL-encoded inside the segment, as Matomo expects. */
export const segmentOf = (conditions: ReadonlyArray<readonly [string, string]>): string | undefined =>
  conditions.length === 0
    ? undefined
    : conditions.map(([name, value]) => `${name}==${encodeURIComponent(value)}`).join(';')

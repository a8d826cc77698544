import { ApiError } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import { callMatomo } from './client.js'
import type { MatomoVisit } from './provider-types.js'
import { actionInstants } from './timezone.js'
import type { VisitParams } from './visit-walk.js'

/**
 * Paging Live's visitor log as it stood at one moment. Live orders visits by their last action time
 * (then idvisit), newest first unless `filter_sort_order=asc` (matomo-org/matomo@f09912cb:
 * plugins/Live/Model.php makeLogVisitsQueryString), and a visit's last action time moves with every
 * action it gets: a visit further down the list that gets one between two page reads jumps to the front
 * (the end, ascending), so the visits between shift by one and the next page repeats one and misses it.
 * Live has no bound that holds a list still: no highest idvisit, no upper time bound finer than a day
 * (Model.php getWhereClauseAndBind: `minTimestamp` is a lower bound on the last action time, strictly
 * after; `period`/`date` give whole days), no keyset.
 *
 * So a listing is read as of `asOf` (unix seconds, taken when its first page is read and carried in the
 * cursor): a visit whose last action is at or before `asOf` has its place from Live's order; one whose
 * last action is later either began after `asOf` (it is not in the listing) or got actions since, and
 * then takes the place its last action at or before `asOf` gives it. Live's own order decides everything
 * else, and each visit is placed once (by idVisit), so pages read one after the other neither repeat nor
 * miss a visit that gets actions.
 *
 * Positions can still move under a listing: a visit deleted between pages (the GDPR tool) moves the ones
 * after it back by one, and one recorded between pages with a past `cdt` at or before `asOf` moves them on
 * by one. So a page after the first is read after the visit the page before ended with (its `after`
 * anchor, carried in the cursor), wherever that visit now stands; if that visit itself is gone the page
 * cannot be placed, and the answer is a 409 asking to start again rather than a page that repeats or skips.
 */

/**
 * The moment a listing that starts now is read as of: this second, so what was just recorded is in it.
 * Matomo's times are whole seconds, so an action recorded later in this same second cannot be told from
 * one before the read; such an action on a visit further down can still shift the later pages by one.
 */
export const snapshotNow = (): number => Math.floor(Date.now() / 1000)

/** At most this many visits may have changed since a listing's first page before it must start again. */
export const MAX_CHANGED_VISITS = 10_000

/** The order Live lists visits in: `filter_sort_order=asc` is oldest first, anything else newest first. */
const ascending = (params: VisitParams, raw: Readonly<Record<string, string>>) =>
  String(params.filter_sort_order ?? raw.filter_sort_order ?? '').toLowerCase() === 'asc'

/**
 * Live's answer to a call with `filter_limit=limit`: Matomo applies that limit (core/API/DataTable filters),
 * so more visits are not its answer. A connection's `api_url` may name its creator's server; its page of
 * hundreds of thousands of visits would each be walked and mapped while the process's other requests
 * waited. Refused (502) before any is read.
 */
export function visitsWithin(answer: unknown, limit: number): MatomoVisit[] {
  if (!Array.isArray(answer)) return []
  if (answer.length > limit) {
    throw new ApiError(
      502,
      `Matomo answered ${answer.length} visits to a call limited to ${limit}; not passed on`,
    )
  }
  return answer as MatomoVisit[]
}

async function liveVisits(
  ctx: Pick<HandlerContext, 'client' | 'credentials' | 'rawParams'>,
  params: VisitParams,
  limit: number,
): Promise<MatomoVisit[]> {
  // Always from offset 0: Live's filter_offset skips visits across its time windows (see fetchVisits).
  const visits = await callMatomo<MatomoVisit[]>(ctx, 'Live.getLastVisitsDetails', {
    ...ctx.rawParams,
    ...params,
    filter_offset: 0,
    filter_limit: limit,
  })
  return visitsWithin(visits, limit)
}

function tooManyChanged(): never {
  throw new ApiError(
    409,
    `More than ${MAX_CHANGED_VISITS} visits of this Matomo site changed since the first page of this list was read; read the list again from offset 0`,
  )
}

/**
 * Where a visit that changed after `asOf` stood at `asOf`: its last action at or before then, from its
 * actions' instants (a visit's first 500 actions only, the visitor log's cap; past them the last one
 * listed). Undefined when the visit began after `asOf`.
 */
function lastActionAsOf(visit: MatomoVisit, asOf: number, timezone: string | undefined): number | undefined {
  const first = Number(visit.firstActionTimestamp)
  if (!(first <= asOf)) return undefined
  const actions = visit.actionDetails ?? []
  const instants = actionInstants(
    actions.map((a) => a.timestamp),
    visit.firstActionTimestamp,
    visit.lastActionTimestamp,
    timezone,
  )
  return Math.max(first, ...instants.filter((t): t is number => t !== undefined && t <= asOf))
}

function visitGone(id: string): never {
  throw new ApiError(
    409,
    `The Matomo visit ${id} where the previous page of this list ended is no longer in the visitor log (deleted since); read the list again from offset 0`,
  )
}

/** Where a page after the first starts: after the visit the page before ended with, or at it (`inclusive`). */
export interface VisitAnchor {
  readonly idVisit: string
  readonly inclusive: boolean
}

/**
 * Visits `offset` to `offset + limit` of the listing as of `asOf` (see above); with an `anchor` (from
 * the page before), the `limit` visits from or after that visit, wherever it now stands, so a visit
 * deleted or recorded in the past between pages neither makes a page skip nor repeat one.
 * `timezone` is asked for only when a visit changed after `asOf` (its action times are on the site's clock).
 */
export async function readVisitsAsOf(
  ctx: Pick<HandlerContext, 'client' | 'credentials' | 'rawParams'>,
  params: VisitParams,
  asOf: number,
  offset: number,
  limit: number,
  timezone: () => Promise<string | undefined>,
  anchor?: VisitAnchor,
): Promise<MatomoVisit[]> {
  if (anchor === undefined || offset === 0) {
    return (await listingAsOf(ctx, params, asOf, offset + limit, timezone)).visits.slice(
      offset,
      offset + limit,
    )
  }
  // The anchor is expected just before (or at) `offset`; read further while it has moved on.
  for (let extra = 0; ; extra = Math.max(limit, extra * 2)) {
    const { visits, exhausted } = await listingAsOf(ctx, params, asOf, offset + limit + extra, timezone)
    const found = visits.findIndex((v) => String(v.idVisit) === anchor.idVisit)
    const from = found + (anchor.inclusive ? 0 : 1)
    if (found >= 0 && (from + limit <= visits.length || exhausted)) return visits.slice(from, from + limit)
    if (exhausted && found < 0) visitGone(anchor.idVisit)
    if (extra > MAX_CHANGED_VISITS) tooManyChanged()
  }
}

/**
 * The first `want` visits of the listing as of `asOf`, and whether they are all there are (Live has no
 * more). See the comment at the top for the order.
 */
async function listingAsOf(
  ctx: Pick<HandlerContext, 'client' | 'credentials' | 'rawParams'>,
  params: VisitParams,
  asOf: number,
  want: number,
  timezone: () => Promise<string | undefined>,
): Promise<{ visits: MatomoVisit[]; exhausted: boolean }> {
  const asc = ascending(params, ctx.rawParams)
  const settled = (v: MatomoVisit) => Number(v.lastActionTimestamp) <= asOf
  // Live's list up to the `want`th visit settled at `asOf`. Newest first, the changed visits come
  // before every settled one, so they are all read too; oldest first, they come after, and are asked
  // for on their own below.
  let size = want
  let rows: MatomoVisit[]
  let exhausted: boolean
  for (;;) {
    rows = await liveVisits(ctx, params, size)
    const count = rows.filter(settled).length
    const last = rows[rows.length - 1]
    exhausted = rows.length < size || (asc && last !== undefined && !settled(last))
    if (count >= want || exhausted) break
    if (size - count > MAX_CHANGED_VISITS) tooManyChanged()
    size += want - count
  }
  const kept = rows.filter(settled)
  let changed = rows.filter((v) => !settled(v))
  if (asc) {
    // Newest first from just after `asOf`: the visits that changed (or began) since.
    const min = Math.max(asOf, Number(params.minTimestamp ?? 0) || 0)
    changed = await liveVisits(
      ctx,
      { ...params, filter_sort_order: 'desc', minTimestamp: min },
      MAX_CHANGED_VISITS + 1,
    )
    if (changed.length > MAX_CHANGED_VISITS) tooManyChanged()
  }
  const listed = new Set(kept.map((v) => String(v.idVisit)))
  const placed: Array<{ visit: MatomoVisit; at: number }> = kept.map((visit) => ({
    visit,
    at: Number(visit.lastActionTimestamp),
  }))
  const after = Number(params.minTimestamp)
  if (changed.length > 0) {
    const zone = await timezone()
    for (const visit of changed) {
      // Read by both queries when it changed between them: the settled reading is its place.
      if (listed.has(String(visit.idVisit))) continue
      const at = lastActionAsOf(visit, asOf, zone)
      // Not in the listing: begun after `asOf`, or last acting before the list's own lower bound then.
      if (at === undefined || (Number.isFinite(after) && at <= after)) continue
      listed.add(String(visit.idVisit))
      placed.push({ visit, at })
    }
  }
  // Live's order: last action time, then idvisit, both the same way (Model.php makeLogVisitsQueryString).
  const sign = asc ? 1 : -1
  placed.sort((a, b) => sign * (a.at - b.at || Number(a.visit.idVisit) - Number(b.visit.idVisit)))
  return { visits: placed.slice(0, want).map((p) => p.visit), exhausted }
}

import { notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { parseVisitKey, siteOf, visitorIdOf } from './ids.js'
import { fromMatomoVisit } from './mappers.js'
import type { MatomoVisit } from './provider-types.js'
import { siteTimezone } from './site-timezone.js'
import { readVisitsAsOf, snapshotNow } from './visit-snapshot.js'
import {
  fetchVisits,
  parseWalkCursor,
  segmentOf,
  type VisitParams,
  walkCursor,
  walkVisits,
  windowParams,
} from './visit-walk.js'

const dateFilter = (q: ListQuery, name: string): Date | undefined => {
  const v = q.filters[name]
  return v instanceof Date ? v : undefined
}

/** The visits a session list reads, from the query alone; a 400 naming the filter Matomo could not be asked by. */
function sessionsAsked(q: ListQuery) {
  const idSite = siteOf(q.filters, 'sessions')
  const conditions: Array<[string, string]> = []
  const { visitor_id: visitor, source, medium } = q.filters
  if (typeof visitor === 'string') conditions.push(['visitorId', visitorIdOf(visitor)])
  if (typeof source === 'string') conditions.push(['referrerName', source])
  if (typeof medium === 'string') conditions.push(['referrerType', medium])
  const start = dateFilter(q, 'start_gte')
  const end = dateFilter(q, 'end_lt')
  const params: VisitParams = {
    idSite,
    segment: segmentOf(conditions),
    ...(q.order ? { filter_sort_order: q.order } : {}),
    ...windowParams(start, end),
  }
  return { idSite, start, end, params }
}

async function listSessions(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { idSite, start, end, params } = sessionsAsked(q)
  const scope = `matomo:${ctx.connectionId}:sessions:${JSON.stringify(params)}`
  let zone: Promise<string | undefined> | undefined
  const timezone = () => {
    zone ??= siteTimezone(ctx, idSite)
    return zone
  }
  if (!start && !end) {
    // Sessions are visits one to one: the unified page is the listing's page, read as of the moment
    // the page before it was (see walkVisits), or as of now.
    const remembered = await ctx.cursors.get(scope, q.offset, { latest: true })
    const cursor = remembered === undefined ? undefined : parseWalkCursor(remembered)
    const asOf = cursor?.asOf ?? snapshotNow()
    const visits = await readVisitsAsOf(ctx, params, asOf, q.offset, q.limit, timezone, cursor?.anchor)
    const last = visits[visits.length - 1]
    const anchor = last && { idVisit: String(last.idVisit), inclusive: false }
    ctx.cursors.set(
      scope,
      q.offset + q.limit,
      walkCursor({ asOf, visitOffset: q.offset + q.limit, skip: 0, anchor }),
    )
    return visits.map(fromMatomoVisit)
  }
  // A session is in the window when it started in it; Matomo narrows by last action, so trim here.
  const inWindow = (v: MatomoVisit) => {
    const t = v.firstActionTimestamp * 1000
    return (!start || t >= start.getTime()) && (!end || t < end.getTime())
  }
  const pageSize = Math.min(100, Math.max(10, q.limit))
  const visits = await walkVisits(
    ctx,
    scope,
    params,
    q.offset,
    q.limit,
    (v) => (inWindow(v) ? [v] : []),
    pageSize,
    timezone,
  )
  return visits.map(fromMatomoVisit)
}

/** Matomo has no get-by-id for visits: a Live query segmented on the visit id answers it. */
export async function getVisit(ctx: HandlerContext, idSite: string, idVisit: string): Promise<MatomoVisit> {
  const [visit] = await fetchVisits(ctx, { idSite, segment: segmentOf([['visitId', idVisit]]) }, 0, 1)
  if (!visit || String(visit.idVisit) !== idVisit) {
    throw notFound(`Matomo session ${idSite}:${idVisit} not found`)
  }
  return visit
}

export const sessionHandlers: ObjectHandlers = {
  list: listSessions,
  checkList: (q) => void sessionsAsked(q),
  async get(ctx, id) {
    const { idSite, idVisit } = parseVisitKey(id)
    return fromMatomoVisit(await getVisit(ctx, idSite, idVisit))
  },
  listParams: ['order', 'sort'],
  sortFields: ['end_at'],
  filters: ['property_id', 'visitor_id', 'source', 'medium', 'start_gte', 'end_lt'],
}

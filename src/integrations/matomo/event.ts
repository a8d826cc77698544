import { randomUUID } from 'node:crypto'
import { badRequest, notFound, ProviderError } from '../../errors.js'
import { EVENT_TYPES } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { parseActionKey, siteOf, visitIdOf, visitorIdOf } from './ids.js'
import { fromMatomoAction, toMatomoTrackingRequest } from './mappers.js'
import type { MatomoVisit } from './provider-types.js'
import { getVisit } from './session.js'
import { segmentOf, type VisitParams, walkVisits, windowParams } from './visit-walk.js'

/**
 * Events are the `actionDetails` of visits. Matomo pages visits, not actions, and cannot filter actions
 * by type, exact time or text, so visits are walked (with remembered positions) and actions are kept or
 * dropped here; the filters the provider can apply (site, visit, visitor, time window) narrow the walk.
 */
async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const idSite = siteOf(q.filters, 'events')
  const { session_id: session, visitor_id: visitor, type } = q.filters
  if (typeof type === 'string' && !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`type: '${type}' is not an event type; use one of ${EVENT_TYPES.join(', ')}`)
  }
  const start = q.filters.start_gte instanceof Date ? q.filters.start_gte : undefined
  const end = q.filters.end_lt instanceof Date ? q.filters.end_lt : undefined
  const conditions: Array<[string, string]> = []
  if (typeof session === 'string') conditions.push(['visitId', visitIdOf(session)])
  if (typeof visitor === 'string') conditions.push(['visitorId', visitorIdOf(visitor)])
  const params: VisitParams = { idSite, segment: segmentOf(conditions), ...windowParams(start, end) }
  const text = q.query?.toLowerCase()
  const keep = (e: UnifiedRecord): boolean => {
    const t = (e.created_at as Date | undefined)?.getTime() ?? 0
    if (start && t < start.getTime()) return false
    if (end && t >= end.getTime()) return false
    if (typeof type === 'string' && e.event_type !== type) return false
    if (text) {
      const hay = [e.name, e.page_url, e.page_title].filter((v) => typeof v === 'string').join('\n')
      if (!hay.toLowerCase().includes(text)) return false
    }
    return true
  }
  const pick = (v: MatomoVisit) =>
    (v.actionDetails ?? []).map((a, i) => fromMatomoAction(v, a, i)).filter(keep)
  const scope = `matomo:${ctx.connectionId}:events:${JSON.stringify([params, type, text])}`
  const pageSize = Math.min(100, Math.max(5, Math.ceil(q.limit / 4)))
  return walkVisits(ctx, scope, params, q.offset, q.limit, pick, pageSize)
}

async function getEvent(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const { idSite, idVisit, index } = parseActionKey(id)
  const visit = await getVisit(ctx, idSite, idVisit)
  const action = visit.actionDetails?.[index]
  if (!action) throw notFound(`Matomo event ${id} not found`)
  return fromMatomoAction(visit, action, index)
}

interface BulkTrackingAnswer {
  readonly status?: string
  readonly tracked?: number
  readonly invalid?: number
}

/**
 * Sends one event through the bulk Tracking API (JSON body, token inside it, which also allows a past
 * `cdt` and geo overrides). Matomo returns no id: ours is generated, sent as `ec_id` for orders (Matomo
 * refuses a repeated order id), and returned.
 */
async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const idSite = typeof body.property_id === 'string' ? body.property_id : undefined
  if (!idSite || !/^\d+$/.test(idSite)) throw badRequest('property_id (the Matomo site id) is required')
  const id = randomUUID()
  const tracking = toMatomoTrackingRequest(idSite, id, body)
  for (const [k, v] of Object.entries(ctx.rawParams)) tracking.set(k, v)
  const answer = await ctx.client.json<BulkTrackingAnswer>({
    method: 'POST',
    path: 'matomo.php',
    body: { requests: [`?${tracking.toString()}`], token_auth: ctx.credentials.token_auth },
    idempotent: false,
  })
  if (answer?.status !== 'success' || answer.tracked !== 1) {
    throw new ProviderError(
      400,
      `Matomo did not track the event (invalid requests: ${answer?.invalid ?? 'unknown'})`,
    )
  }
  const created = typeof body.created_at === 'string' ? new Date(body.created_at) : new Date()
  const { raw: _raw, ...fields } = body
  return {
    ...fields,
    id,
    created_at: created,
    updated_at: created,
    event_type: typeof body.event_type === 'string' ? body.event_type : 'CUSTOM',
    raw: { request: Object.fromEntries(tracking) },
  }
}

export const eventHandlers: ObjectHandlers = {
  list: listEvents,
  get: getEvent,
  create: createEvent,
  listParams: ['query'],
  filters: ['property_id', 'session_id', 'visitor_id', 'type', 'start_gte', 'end_lt'],
}

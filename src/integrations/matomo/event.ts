import { randomBytes, randomUUID } from 'node:crypto'
import { badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { eventTypeFilter } from '../analytics-values.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { parseActionKey, siteOf, visitIdOf, visitorIdOf } from './ids.js'
import { fromMatomoActions, toMatomoTrackingRequest } from './mappers.js'
import type { MatomoAction, MatomoVisit } from './provider-types.js'
import { getVisit } from './session.js'
import { siteTimezone } from './site-timezone.js'
import { fetchVisits, segmentOf, type VisitParams, walkVisits, windowParams } from './visit-walk.js'

/**
 * Events are the `actionDetails` of visits. Matomo pages visits, not actions, and cannot filter actions
 * by type, exact time or text, so visits are walked (with remembered positions) and actions are kept or
 * dropped here; the filters the provider can apply (site, visit, visitor, time window) narrow the walk.
 */
/**
 * The visits an event list reads, from the query alone: the site, the segment of its session and visitor,
 * the window, and the event type kept; a 400 naming the filter Matomo could not be asked by.
 */
function eventsAsked(q: ListQuery) {
  const idSite = siteOf(q.filters, 'events')
  const { session_id: session, visitor_id: visitor } = q.filters
  const type = eventTypeFilter(q.filters.type)
  const start = q.filters.start_gte instanceof Date ? q.filters.start_gte : undefined
  const end = q.filters.end_lt instanceof Date ? q.filters.end_lt : undefined
  const conditions: Array<[string, string]> = []
  if (typeof session === 'string') conditions.push(['visitId', visitIdOf(session)])
  if (typeof visitor === 'string') conditions.push(['visitorId', visitorIdOf(visitor)])
  const params: VisitParams = { idSite, segment: segmentOf(conditions), ...windowParams(start, end) }
  return { idSite, type, start, end, params }
}

async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { idSite, type, start, end, params } = eventsAsked(q)
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
  const timezone = await siteTimezone(ctx, idSite)
  // The actions a visit had when the listing was first read: later ones would shift every page after.
  const pick = (v: MatomoVisit, asOf: number) => {
    const all = fromMatomoActions(v, timezone)
    checkNoneCut(v, all, start, end)
    return all.filter((e) => keep(e) && ((e.created_at as Date | undefined)?.getTime() ?? 0) <= asOf * 1000)
  }
  const scope = `matomo:${ctx.connectionId}:events:${JSON.stringify([params, type, text])}`
  const pageSize = Math.min(100, Math.max(5, Math.ceil(q.limit / 4)))
  return walkVisits(ctx, scope, params, q.offset, q.limit, pick, pageSize, async () => timezone)
}

/**
 * The visitor log lists a visit's first `visitor_log_maximum_actions_per_visit` (500) actions and only
 * counts the rest (matomo-org/matomo@f09912cb:plugins/Live/Visitor.php enrichVisitorArrayWithActions,
 * config/global.ini.php), and Live has no way to page through a visit's actions. The missing ones
 * happened between the last listed action and the visit's last action: a list whose window reaches
 * into that time fails, naming the setting, rather than leaving them out.
 */
function checkNoneCut(v: MatomoVisit, listed: readonly UnifiedRecord[], start?: Date, end?: Date): void {
  const cut = Number(v.truncatedActionsCount ?? 0)
  if (!(cut > 0)) return
  const from = (listed[listed.length - 1]?.created_at as Date | undefined)?.getTime() ?? 0
  const until = Number(v.lastActionTimestamp) * 1000
  if ((end && from >= end.getTime()) || (start && until < start.getTime())) return
  throw new ProviderError(
    502,
    `Matomo's visitor log lists only the first ${listed.length} actions of visit ${v.idSite}:${v.idVisit} and leaves out ${cut}, so its events cannot all be listed. ` +
      'The cap is the visitor_log_maximum_actions_per_visit setting (config/config.ini.php [General], 500 by default); a Matomo administrator can raise it. Otherwise narrow start_gte/end_lt around that visit.',
  )
}

async function getEvent(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const { idSite, idVisit, index } = parseActionKey(id)
  const visit = await getVisit(ctx, idSite, idVisit)
  if (!visit.actionDetails?.[index]) throw notFound(`Matomo event ${id} not found`)
  return fromMatomoActions(visit, await siteTimezone(ctx, idSite))[index] as UnifiedRecord
}

interface BulkTrackingAnswer {
  readonly status?: string
  readonly tracked?: number
  readonly invalid?: number
}

/** `pv_id` characters (https://developer.matomo.org/api-reference/tracking-api: "[0-9a-Z]", six). */
const PV_ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** A fresh six-character page view id; 62^6 values, so one visitor's actions do not share one by chance. */
function newPageViewId(): string {
  return [...randomBytes(6)].map((b) => PV_ID_ALPHABET[b % PV_ID_ALPHABET.length]).join('')
}

/**
 * How far back a created action's visit is looked for when no past `cdt` fixes its time: Matomo stamps
 * it with its own clock, which may differ from ours.
 */
const CLOCK_SLACK_S = 3600

/**
 * What identifies the created action in Matomo's visitor log, from the request that was sent: the visitor
 * segment the visit is under (`uid` makes the visitor and sets `userId`; `cid`/`_id` name the visitor id)
 * and the action itself: an order by its unique `ec_id` (`orderId`), anything else by the page view id
 * Matomo stores for every action (`idpageview` = `pv_id`, matomo-org/matomo@f09912cb:
 * plugins/Actions/Columns/IdPageview.php, plugins/Actions/VisitorDetails.php) and its type.
 */
function trackedActionOf(sent: URLSearchParams) {
  const uid = sent.get('uid')
  const visitor = (sent.get('cid') ?? sent.get('_id') ?? '').slice(0, 16).toLowerCase()
  const segment = uid ? segmentOf([['userId', uid]]) : segmentOf([['visitorId', visitor]])
  const orderId = sent.get('idgoal') === '0' ? sent.get('ec_id') : null
  const pageView = sent.get('pv_id')?.slice(0, 6)
  const type = sent.has('e_c')
    ? 'event'
    : sent.has('search')
      ? 'search'
      : sent.has('link')
        ? 'outlink'
        : sent.has('download')
          ? 'download'
          : sent.has('idgoal')
            ? 'goal'
            : 'action'
  const matches = (a: MatomoAction) =>
    orderId
      ? a.type === 'ecommerceOrder' && a.orderId === orderId
      : a.type === type && a.idpageview === pageView
  return {
    segment,
    matches,
    describe: orderId ? `order ${orderId}` : `pv_id ${pageView}`,
    who: uid ?? visitor,
  }
}

/**
 * The event Matomo recorded for a tracking request, read back from the visitor log so that its id is the
 * one list and get give (`<idSite>:<idVisit>:<index>`): the visitor's visits whose last action is not
 * older than the event, newest first, searched for the action.
 */
async function findTracked(
  ctx: HandlerContext,
  idSite: string,
  sent: URLSearchParams,
  sentAt: number,
): Promise<UnifiedRecord> {
  const { segment, matches, describe, who } = trackedActionOf(sent)
  const cdt = Number(sent.get('cdt'))
  const since = Math.min(Number.isFinite(cdt) && cdt > 0 ? cdt : sentAt, sentAt - CLOCK_SLACK_S) - 1
  const params: VisitParams = { idSite, segment, minTimestamp: since }
  const timezone = await siteTimezone(ctx, idSite)
  const pageSize = 50
  for (let offset = 0; ; offset += pageSize) {
    // Without the caller's raw parameters: those were meant for the tracking request.
    const visits = await fetchVisits({ ...ctx, rawParams: {} }, params, offset, pageSize)
    for (const visit of visits) {
      const actions = visit.actionDetails ?? []
      // The last match: a caller's own pv_id may be shared with the page view it belongs to.
      for (let i = actions.length - 1; i >= 0; i--) {
        if (matches(actions[i] as MatomoAction)) return fromMatomoActions(visit, timezone)[i] as UnifiedRecord
      }
    }
    if (visits.length < pageSize) break
  }
  throw new ProviderError(
    502,
    `Matomo accepted the event but its visitor log does not show it (${describe} of visitor ${who}), so it has no id to answer: ` +
      'Matomo may queue tracking requests (QueuedTracking plugin), or the visit already lists its 500 actions. The event is recorded; do not send it again.',
  )
}

/**
 * Matomo records an outlink, a download or a site search only when its parameter (`link`, `download`,
 * `search`) is not empty; otherwise the same request is recorded as a page view
 * (matomo-org/matomo@f09912cb:plugins/Actions/Actions/ActionClickUrl.php, ActionDownloadUrl.php
 * shouldHandle; ActionSiteSearch.php detectSiteSearch). Refused here, before anything is written.
 */
function checkTrackable(body: WriteBody): void {
  const given = (k: string) => typeof body[k] === 'string' && body[k] !== ''
  const type = body.event_type
  if ((type === 'CLICK' || type === 'FILE_DOWNLOAD') && !given('page_url')) {
    throw badRequest(`page_url is required for a Matomo ${type} event (the link's address)`)
  }
  if (type === 'SEARCH' && !given('name')) {
    throw badRequest('name is required for a Matomo SEARCH event (the search keyword)')
  }
}

/**
 * Sends one event through the bulk Tracking API (JSON body, token inside it, which also allows a past
 * `cdt` and geo overrides), then reads it back: Matomo answers no id. The request names the visitor
 * (`cid` for a Matomo visitor id, `uid` for a user id, a new random visitor id when the body has none)
 * and a fresh `pv_id`, so the recorded action can be found; the answer is the event as get returns it.
 */
async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const idSite = typeof body.property_id === 'string' ? body.property_id : undefined
  if (!idSite || !/^\d+$/.test(idSite)) throw badRequest('property_id (the Matomo site id) is required')
  checkTrackable(body)
  const tracking = toMatomoTrackingRequest(idSite, randomUUID(), body)
  for (const [k, v] of Object.entries(ctx.rawParams)) tracking.set(k, v)
  if (!['uid', 'cid', '_id'].some((k) => tracking.has(k))) tracking.set('cid', randomBytes(8).toString('hex'))
  if (!tracking.get('pv_id')) tracking.set('pv_id', newPageViewId())
  const sentAt = Math.floor(Date.now() / 1000)
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
  return findTracked(ctx, idSite, tracking, sentAt)
}

export const eventHandlers: ObjectHandlers = {
  list: listEvents,
  checkList: (q) => void eventsAsked(q),
  get: getEvent,
  create: createEvent,
  listParams: ['query'],
  filters: ['property_id', 'session_id', 'visitor_id', 'type', 'start_gte', 'end_lt'],
}

import { createHash } from 'node:crypto'
import { localDay } from './calendar.js'
import { VISIT_LENGTH_S } from './constants.js'
import { hex16 } from './data.js'
import type { MatomoActionRecord, MatomoState, MatomoVisitRecord } from './state.js'

/**
 * Parameters that need a valid token_auth: an IP or location override
 * (https://developer.matomo.org/api-reference/tracking-api "Other parameters (require authentication)").
 */
const PRIVILEGED = ['cip', 'country', 'region', 'city', 'lat', 'long']
/**
 * A `cdt` at least this old needs token_auth (matomo-org/matomo@f09912cb:config/global.ini.php
 * tracking_requests_require_authentication_when_custom_timestamp_newer_than = 86400;
 * core/Tracker/Request.php getCustomTimestamp).
 */
const CDT_WITHOUT_TOKEN_S = 86_400
/** A `cdt` in the future or over 20 years old is ignored (core/Tracker/Request.php isTimestampValid). */
const CDT_MAX_AGE_S = 20 * 365 * 86_400

export type TrackResult = { ok: true } | { ok: false; reason: string }

/** What the HTTP request itself says about the client (the tracker reads headers when params are absent). */
export interface TrackingClient {
  readonly authorized: boolean
  readonly ip: string
  readonly userAgent: string
  readonly language: string
}

const HEX16 = /^[0-9a-f]{16}$/i

/**
 * The visitor id a request names, in Matomo's order: a user id (`uid`, hashed: its visitor id is the
 * first 16 hex characters of sha1(uid), enable_userid_overwrites_visitorid = 1), else a forced `cid`
 * (exactly 16 hex characters or the request is invalid), else the first-party cookie `_id`
 * (matomo-org/matomo@f09912cb:core/Tracker/Request.php getVisitorId, getUserIdHashed).
 */
function visitorOf(query: URLSearchParams): { id?: string; forced: boolean } | string {
  const uid = query.get('uid')
  if (uid) return { id: createHash('sha1').update(uid).digest('hex').slice(0, 16), forced: false }
  const cid = query.get('cid')
  if (cid) {
    if (!HEX16.test(cid)) return `Visitor ID (cid) ${cid} must be 16 characters long`
    return { id: cid.toLowerCase(), forced: true }
  }
  const cookie = query.get('_id')
  if (cookie && cookie.length >= 16 && HEX16.test(cookie.slice(0, 16))) {
    return { id: cookie.slice(0, 16).toLowerCase(), forced: false }
  }
  return { forced: false }
}

/**
 * The config id: a hash of the client's device, IP and language, which Live shows as `fingerprint`
 * (matomo-org/matomo@f09912cb:core/Tracker/Settings.php getConfigId; plugins/Live/VisitorDetails.php).
 * Requests sent by one server (same IP, user agent and language) share it.
 */
function configIdOf(query: URLSearchParams, client: TrackingClient): string {
  const ua = query.get('ua') ?? client.userAgent
  const ip = query.get('cip') ?? client.ip
  const lang = query.get('lang') ?? client.language
  return createHash('sha1').update(`${ua}\n${ip}\n${lang}`).digest('hex').slice(0, 16)
}

/**
 * The visit a request continues, found the way VisitorRecognizer does
 * (matomo-org/matomo@f09912cb:core/Tracker/VisitorRecognizer.php findKnownVisitor,
 * shouldLookupOneVisitorFieldOnly; core/Tracker/Model.php findVisitor): a forced `cid` matches on the
 * visitor id only; no visitor id matches on the config id only; `_id` or `uid` try the visitor id (its
 * latest visit) and else fall back to the config id within 30 minutes either side (`uid`: only a visit
 * without another user id), so a server sending for several visitors can have an action recorded in
 * another visitor's visit, which then changes hands (see track).
 */
function knownVisit(
  state: MatomoState,
  idSite: string,
  visitor: { id?: string; forced: boolean },
  uid: string | null,
  configId: string,
  at: number,
): MatomoVisitRecord | undefined {
  const visits = state.visitsOf(idSite)
  const byVisitor = () =>
    visits.find((v) => v.visitorId === visitor.id && v.lastActionTimestamp <= at + VISIT_LENGTH_S)
  const byConfig = () =>
    visits.find(
      (v) =>
        v.fingerprint === configId &&
        Math.abs(v.lastActionTimestamp - at) <= VISIT_LENGTH_S &&
        (uid === null || v.userId === null || v.userId === uid),
    )
  if (visitor.forced) return byVisitor()
  if (visitor.id === undefined) return byConfig()
  return byVisitor() ?? byConfig()
}

/**
 * Whether the known visit goes on: its last action under 30 minutes before this one, on the same site
 * day (create_new_visit_after_midnight = 1), and no `new_visit=1`
 * (matomo-org/matomo@f09912cb:plugins/CoreHome/Tracker/VisitRequestProcessor.php isVisitNew;
 * config/global.ini.php visit_standard_length, create_new_visit_after_midnight).
 */
function continues(visit: MatomoVisitRecord, at: number, timezone: string, query: URLSearchParams): boolean {
  if (query.get('new_visit') === '1') return false
  if (!(visit.lastActionTimestamp > at - VISIT_LENGTH_S)) return false
  return localDay(visit.lastActionTimestamp, timezone) === localDay(at, timezone)
}

/** The request's time: a valid `cdt` (unix time or UTC datetime), else now (see CDT_* above). */
function timeOf(query: URLSearchParams, authorized: boolean, now: number): number | string {
  const cdt = query.get('cdt')
  if (!cdt) return now
  const at = /^\d+$/.test(cdt) ? Number(cdt) : Math.floor(Date.parse(`${cdt.replace(' ', 'T')}Z`) / 1000)
  if (!Number.isFinite(at) || at > now || at <= now - CDT_MAX_AGE_S) return now
  if (now - at >= CDT_WITHOUT_TOKEN_S && !authorized) {
    return `Custom timestamp is ${now - at} seconds old, requires &token_auth...`
  }
  return at
}

/**
 * Applies one tracking request (`?idsite=1&rec=1&…`): the action joins the visit it continues or starts
 * a new one. Returns why it was refused, the way Matomo counts a bulk request's invalid entries.
 */
export function track(state: MatomoState, query: URLSearchParams, client: TrackingClient): TrackResult {
  const idSite = query.get('idsite') ?? ''
  if (query.get('rec') !== '1') return { ok: false, reason: 'rec=1 is required' }
  const site = state.sites.get(idSite)
  if (!site) return { ok: false, reason: `invalid idsite ${idSite}` }
  const at = timeOf(query, client.authorized, Math.floor(Date.now() / 1000))
  if (typeof at === 'string') return { ok: false, reason: at }
  if (PRIVILEGED.some((p) => query.has(p)) && !client.authorized) {
    return { ok: false, reason: 'token_auth required' }
  }
  const visitor = visitorOf(query)
  if (typeof visitor === 'string') return { ok: false, reason: visitor }
  const built = actionOf(query, at)
  if (typeof built === 'string') return { ok: false, reason: built }
  const action = built
  if (action.type === 'ecommerceOrder') {
    const orderId = String(action.orderId)
    if (state.orderIds.has(orderId)) return { ok: false, reason: `order ${orderId} was already recorded` }
    state.orderIds.add(orderId)
  }
  const uid = query.get('uid')
  const configId = configIdOf(query, client)
  const known = knownVisit(state, idSite, visitor, uid, configId, at)
  let visit = known && continues(known, at, site.timezone ?? 'UTC', query) ? known : undefined
  // A continued visit takes the request's visitor id when it has one, whoever it belonged to
  // (core/Tracker/Visit.php setIdVisitorForExistingVisit; a user id's hash takes precedence).
  if (visit && visitor.id !== undefined) visit.visitorId = visitor.id
  if (!visit) {
    // A known visitor keeps its id, even one matched by config id; otherwise the request's, or a random
    // one (core/Tracker/Visit.php getVisitorIdcookie, generateUniqueVisitorId).
    const r = state.nextRandom(at)
    const visitorId = known?.visitorId ?? visitor.id ?? hex16(r)
    visit = state.newVisit(r, idSite, visitorId, at, 0)
    visit.fingerprint = configId
    if (query.get('country')) visit.countryCode = String(query.get('country')).toLowerCase()
    state.insertVisit(visit)
  }
  if (uid) visit.userId = uid
  // Actions stay in time order, as Live sorts them by server time (plugins/Actions/VisitorDetails.php).
  const after = visit.actionDetails.findIndex((a) => a.timestamp > at)
  if (after < 0) visit.actionDetails.push(action)
  else visit.actionDetails.splice(after, 0, action)
  state.refresh(visit)
  return { ok: true }
}

/**
 * The page view id every action type stores: the first 6 characters of `pv_id`, or an empty string
 * without one (matomo-org/matomo@f09912cb:plugins/Actions/Columns/IdPageview.php onNewAction, an
 * ActionDimension; core/Tracker/Action.php keeps any value but false). Live returns it as `idpageview`.
 */
const pageViewIdOf = (q: URLSearchParams) => (q.get('pv_id') ?? '').slice(0, 6)

/** The action a tracking request describes, or why it cannot be one. */
function actionOf(q: URLSearchParams, at: number): MatomoActionRecord | string {
  const url = q.get('url') ?? undefined
  const idpageview = pageViewIdOf(q)
  if (q.get('e_c') !== null || q.get('e_a') !== null) {
    if (!q.get('e_c') || !q.get('e_a')) return 'events need e_c and e_a'
    const value = q.get('e_v')
    return {
      type: 'event',
      eventCategory: q.get('e_c') as string,
      eventAction: q.get('e_a') as string,
      ...(q.get('e_n') ? { eventName: q.get('e_n') as string } : {}),
      ...(value !== null ? { eventValue: Number(value) } : {}),
      url,
      idpageview,
      timestamp: at,
    }
  }
  // An empty keyword is no site search: the request falls through to a page view
  // (matomo-org/matomo@f09912cb:plugins/Actions/Actions/ActionSiteSearch.php detectSiteSearch); so do an
  // empty `link` or `download` (ActionClickUrl.php, ActionDownloadUrl.php shouldHandle).
  if (q.get('search'))
    return { type: 'search', siteSearchKeyword: q.get('search') as string, url, idpageview, timestamp: at }
  if (q.get('link')) return { type: 'outlink', url: q.get('link') as string, idpageview, timestamp: at }
  if (q.get('download'))
    return { type: 'download', url: q.get('download') as string, idpageview, timestamp: at }
  // Conversions come from log_conversion; their idpageview is the converting action's, none here
  // (plugins/Goals/VisitorDetails.php, plugins/Ecommerce/VisitorDetails.php join on idlink_va).
  if (q.get('idgoal') === '0') {
    if (!q.get('ec_id')) return 'ecommerce orders need ec_id'
    return {
      type: 'ecommerceOrder',
      orderId: q.get('ec_id') as string,
      revenue: Number(q.get('revenue') ?? 0),
      idpageview: null,
      url,
      timestamp: at,
    }
  }
  if (q.get('idgoal'))
    return {
      type: 'goal',
      goalId: q.get('idgoal') as string,
      revenue: Number(q.get('revenue') ?? 0),
      idpageview: null,
      url,
      timestamp: at,
    }
  return {
    type: 'action',
    url,
    pageTitle: q.get('action_name') ?? '',
    idpageview,
    timeSpent: 0,
    timestamp: at,
  }
}

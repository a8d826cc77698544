import { createHash } from 'node:crypto'
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

export type TrackResult = { ok: true } | { ok: false; reason: string }

/**
 * Applies one tracking request (`?idsite=1&rec=1&…`): the action joins the visitor's open visit or
 * starts a new one. Returns why it was refused, the way Matomo counts a bulk request's invalid entries.
 */
export function track(state: MatomoState, query: URLSearchParams, authorized: boolean): TrackResult {
  const idSite = query.get('idsite') ?? ''
  if (query.get('rec') !== '1') return { ok: false, reason: 'rec=1 is required' }
  if (!state.sites.has(idSite)) return { ok: false, reason: `invalid idsite ${idSite}` }
  const now = Math.floor(Date.now() / 1000)
  const cdt = query.get('cdt')
  let at = now
  if (cdt) {
    at = /^\d+$/.test(cdt) ? Number(cdt) : Math.floor(Date.parse(`${cdt.replace(' ', 'T')}Z`) / 1000)
    if (!Number.isFinite(at)) return { ok: false, reason: `invalid cdt ${cdt}` }
    if (now - at >= CDT_WITHOUT_TOKEN_S && !authorized)
      return { ok: false, reason: `Custom timestamp is ${now - at} seconds old, requires &token_auth...` }
  }
  if (PRIVILEGED.some((p) => query.has(p)) && !authorized) return { ok: false, reason: 'token_auth required' }
  const uid = query.get('uid')
  const given = query.get('_id')
  if (given && !/^[0-9a-f]{16}$/i.test(given)) return { ok: false, reason: `invalid _id ${given}` }
  const visitorId = (
    given ?? (uid ? createHash('sha1').update(uid).digest('hex').slice(0, 16) : '0000000000000001')
  ).toLowerCase()
  const built = actionOf(query, at)
  if (typeof built === 'string') return { ok: false, reason: built }
  const action = built
  if (action.type === 'ecommerceOrder') {
    const orderId = String(action.orderId)
    if (state.orderIds.has(orderId)) return { ok: false, reason: `order ${orderId} was already recorded` }
    state.orderIds.add(orderId)
  }
  let visit: MatomoVisitRecord | undefined =
    query.get('new_visit') === '1' ? undefined : state.openVisit(idSite, visitorId, at)
  if (!visit) {
    visit = state.newVisit(state.nextRandom(at), idSite, visitorId, at, 0)
    if (query.get('country')) {
      visit.countryCode = String(query.get('country')).toLowerCase()
    }
    state.insertVisit(visit)
  }
  if (uid) visit.userId = uid
  visit.actionDetails.push(action)
  state.refresh(visit)
  return { ok: true }
}

/** The action a tracking request describes, or why it cannot be one. */
function actionOf(q: URLSearchParams, at: number): MatomoActionRecord | string {
  const url = q.get('url') ?? undefined
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
      timestamp: at,
    }
  }
  if (q.get('search') !== null)
    return { type: 'search', siteSearchKeyword: q.get('search') as string, url, timestamp: at }
  if (q.get('link')) return { type: 'outlink', url: q.get('link') as string, timestamp: at }
  if (q.get('download')) return { type: 'download', url: q.get('download') as string, timestamp: at }
  if (q.get('idgoal') === '0') {
    if (!q.get('ec_id')) return 'ecommerce orders need ec_id'
    return {
      type: 'ecommerceOrder',
      orderId: q.get('ec_id') as string,
      revenue: Number(q.get('revenue') ?? 0),
      url,
      timestamp: at,
    }
  }
  if (q.get('idgoal'))
    return {
      type: 'goal',
      goalId: q.get('idgoal') as string,
      revenue: Number(q.get('revenue') ?? 0),
      url,
      timestamp: at,
    }
  return {
    type: 'action',
    url,
    pageTitle: q.get('action_name') ?? '',
    idpageview: q.get('pv_id') ?? createHash('sha1').update(`${at}${url}`).digest('hex').slice(0, 6),
    timeSpent: 0,
    timestamp: at,
  }
}

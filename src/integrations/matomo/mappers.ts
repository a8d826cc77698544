import type { EventType } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import { sharedText } from '../shared-text.js'
import { actionKey, visitKey, visitorKey } from './ids.js'
import type { MatomoAction, MatomoSite, MatomoVisit, MatomoVisitorProfile } from './provider-types.js'
import { actionInstants } from './timezone.js'

const nonEmpty = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : undefined

const num = (v: unknown): number | undefined => {
  if (v === null || v === undefined || v === '') return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

const fromSeconds = (s: unknown): Date | undefined => {
  const n = num(s)
  return n === undefined ? undefined : new Date(n * 1000)
}

/** `2024-01-02 03:04:05`: Matomo stores its timestamps in UTC. */
export function fromMatomoDateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(value)
  if (!m) return undefined
  const d = new Date(`${m[1]}T${m[2]}Z`)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export function fromMatomoSite(site: MatomoSite): UnifiedRecord {
  const created = fromMatomoDateTime(site.ts_created)
  return {
    id: String(site.idsite),
    name: site.name,
    timezone: nonEmpty(site.timezone),
    currency: nonEmpty(site.currency),
    parent_id: nonEmpty(site.group),
    created_at: created,
    raw: { ...site },
  }
}

/**
 * `SitesManager.addSite` / `updateSite` parameters. Matomo leaves a parameter it does not receive as it
 * is, so PATCH and PUT both send only what the caller gave. `raw` carries Matomo-only settings
 * (`urls`, `ecommerce`, `excludedIps`…) straight through.
 */
export function toMatomoSiteParams(
  body: Readonly<Record<string, unknown>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const raw = (body.raw && typeof body.raw === 'object' ? body.raw : {}) as Record<string, unknown>
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) out[key] = value.map(String)
    else if (value !== null && value !== undefined && typeof value !== 'object') out[key] = String(value)
  }
  if (typeof body.name === 'string') out.siteName = body.name
  if (typeof body.timezone === 'string') out.timezone = body.timezone
  if (typeof body.currency === 'string') out.currency = body.currency
  if (typeof body.parent_id === 'string') out.group = body.parent_id
  return out
}

const pageViews = (visit: MatomoVisit) => (visit.actionDetails ?? []).filter((a) => a.type === 'action')

export function fromMatomoVisit(visit: MatomoVisit): UnifiedRecord {
  const pages = pageViews(visit)
  const referrerType = nonEmpty(visit.referrerType)
  const start = fromSeconds(visit.firstActionTimestamp)
  const end = fromSeconds(visit.lastActionTimestamp)
  // The visitor log keeps a visit's first 500 actions and counts the rest in truncatedActionsCount
  // (matomo-org/matomo@f09912cb:plugins/Live/Visitor.php enrichVisitorArrayWithActions): the count adds
  // them back, as Matomo's own visitor log does; page views and the exit page cannot be known then.
  const truncated = num(visit.truncatedActionsCount) ?? 0
  const actions =
    visit.actionDetails === undefined ? num(visit.actions) : visit.actionDetails.length + truncated
  return {
    id: visitKey(visit.idSite, visit.idVisit),
    property_id: String(visit.idSite),
    visitor_id: visitorKey(visit.idSite, visit.visitorId),
    created_at: start,
    updated_at: end,
    start_at: start,
    end_at: end,
    duration_seconds: num(visit.visitDuration),
    landing_page: nonEmpty(pages[0]?.url),
    exit_page: truncated > 0 ? undefined : nonEmpty(pages[pages.length - 1]?.url),
    page_views: truncated > 0 ? undefined : pages.length,
    events_count: actions,
    source: referrerType === 'direct' ? undefined : nonEmpty(visit.referrerName),
    medium: referrerType,
    campaign:
      nonEmpty(visit.campaignName) ??
      (referrerType === 'campaign' ? nonEmpty(visit.referrerName) : undefined),
    device: nonEmpty(visit.deviceType),
    browser: nonEmpty(visit.browserName),
    os: nonEmpty(visit.operatingSystemName),
    country: nonEmpty(visit.country),
    city: nonEmpty(visit.city),
    // A bounce is a visit with at most one action, conversions aside (Matomo's bounce_count:
    // matomo-org/matomo@f09912cb:core/DataAccess/LogAggregator.php, visit_total_actions 0 or 1).
    is_bounce: num(visit.actions) === undefined ? undefined : (num(visit.actions) as number) <= 1,
    is_conversion: String(visit.visitConverted) === '1' || (num(visit.goalConversions) ?? 0) > 0,
    raw: { ...visit, __id: visit.idVisit },
  }
}

/** providers.md 12.1, Matomo column. */
export function eventTypeOfMatomoAction(action: MatomoAction): EventType {
  switch (action.type) {
    case 'action':
      return 'PAGE_VIEW'
    case 'outlink':
      return 'CLICK'
    case 'download':
      return 'FILE_DOWNLOAD'
    case 'search':
      return 'SEARCH'
    case 'ecommerceOrder':
      return 'PURCHASE'
    case 'event': {
      const video = /video|media/i.test(action.eventCategory ?? '')
      if (video && /^play/i.test(action.eventAction ?? '')) return 'VIDEO_PLAY'
      if (video && /complete|finish|ended/i.test(action.eventAction ?? '')) return 'VIDEO_COMPLETE'
      return 'CUSTOM'
    }
    default:
      return 'CUSTOM'
  }
}

function nameOfAction(action: MatomoAction): string | undefined {
  switch (action.type) {
    case 'action':
      return nonEmpty(action.pageTitle) ?? nonEmpty(action.url)
    case 'event':
      return nonEmpty(action.eventAction)
    case 'goal':
      return nonEmpty(action.goalName)
    case 'search':
      return nonEmpty(action.siteSearchKeyword)
    default:
      return nonEmpty(action.url) ?? action.type
  }
}

/** Metadata values must be objects (sdk-contract R10): each Matomo-only detail becomes `{ value }`. */
function metadataOf(action: MatomoAction): Record<string, { value: unknown }> | undefined {
  const out: Record<string, { value: unknown }> = {}
  for (const key of [
    'eventCategory',
    'eventAction',
    'eventName',
    'goalName',
    'siteSearchKeyword',
    'idpageview',
  ]) {
    const v = action[key]
    if (v !== undefined && v !== null && v !== '') out[key] = { value: v }
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * One unified event per entry of a visit's `actionDetails`; visit-level context is copied onto each.
 * `at` is the action's instant in unix seconds (see actionInstants: Live writes action times on the
 * site's wall clock).
 */
export function fromMatomoAction(
  visit: MatomoVisit,
  action: MatomoAction,
  index: number,
  at: number | undefined,
): UnifiedRecord {
  const created = at === undefined ? undefined : new Date(at * 1000)
  const campaign = visit.referrerType === 'campaign' ? nonEmpty(visit.referrerName) : undefined
  const value = action.type === 'event' ? num(action.eventValue) : num(action.revenue)
  return {
    id: actionKey(visit.idSite, visit.idVisit, index),
    name: nameOfAction(action),
    event_type: eventTypeOfMatomoAction(action),
    property_id: String(visit.idSite),
    session_id: visitKey(visit.idSite, visit.idVisit),
    visitor_id: visitorKey(visit.idSite, visit.visitorId),
    created_at: created,
    updated_at: created,
    page_url: nonEmpty(action.url),
    page_title: nonEmpty(action.pageTitle),
    page_referrer: index === 0 ? nonEmpty(visit.referrerUrl) : undefined,
    device: nonEmpty(visit.deviceType),
    browser: nonEmpty(visit.browserName),
    os: nonEmpty(visit.operatingSystemName),
    country: nonEmpty(visit.country),
    country_code: nonEmpty(visit.countryCode)?.toUpperCase(),
    region: nonEmpty(visit.region),
    city: nonEmpty(visit.city),
    value,
    currency:
      action.type === 'ecommerceOrder' || action.type === 'goal' ? nonEmpty(visit.siteCurrency) : undefined,
    metadata: metadataOf(action),
    utm_source: nonEmpty(visit.campaignSource),
    utm_medium: nonEmpty(visit.campaignMedium),
    utm_campaign: nonEmpty(visit.campaignName) ?? campaign,
    utm_term: nonEmpty(visit.campaignKeyword),
    utm_content: nonEmpty(visit.campaignContent),
    raw: { ...action },
  }
}

/** The visit's texts fromMatomoAction copies onto every action of the visit. */
const VISIT_FIELDS_ON_ACTIONS = [
  'idSite',
  'idVisit',
  'visitorId',
  'referrerName',
  'siteCurrency',
  'deviceType',
  'browserName',
  'operatingSystemName',
  'country',
  'countryCode',
  'region',
  'city',
  'campaignSource',
  'campaignMedium',
  'campaignName',
  'campaignKeyword',
  'campaignContent',
] as const

/** Every action of a visit as a unified event, each at its instant in the site's timezone. */
export function fromMatomoActions(visit: MatomoVisit, timezone: string | undefined): UnifiedRecord[] {
  const actions = visit.actionDetails ?? []
  // Copied onto each of the visit's actions: each held to SHARED_TEXT_LENGTH (shared-text.ts).
  for (const field of VISIT_FIELDS_ON_ACTIONS)
    sharedText(visit[field] as string | undefined, 'Matomo', `visit's ${field}`)
  const instants = actionInstants(
    actions.map((a) => a.timestamp),
    visit.firstActionTimestamp,
    visit.lastActionTimestamp,
    timezone,
  )
  return actions.map((a, i) => fromMatomoAction(visit, a, i, instants[i]))
}

/**
 * The visitor's main country: the one with the most visits. Matomo sorts `countries` ascending by
 * visits (matomo-org/matomo@f09912cb:plugins/UserCountry/VisitorDetails.php finalizeProfile, asort), so
 * the first entry is the least visited; on a tie the earlier entry (seen in a more recent visit) wins.
 */
function mainCountryOf(profile: MatomoVisitorProfile) {
  let best: NonNullable<MatomoVisitorProfile['countries']>[number] | undefined
  for (const c of profile.countries ?? []) {
    if (!best || (num(c.nb_visits) ?? 0) > (num(best.nb_visits) ?? 0)) best = c
  }
  return best
}

export function fromMatomoVisitorProfile(idSite: string, profile: MatomoVisitorProfile): UnifiedRecord {
  const last = profile.lastVisits?.[0]
  const country = mainCountryOf(profile)
  // The totals cover only the visits the profile aggregated (Matomo's 100 most recent); when there are
  // more they would undercount, so they are left out rather than reported wrong.
  const complete = profile.hasMoreVisits !== true
  return {
    id: visitorKey(idSite, profile.visitorId),
    property_id: idSite,
    // `firstVisit.date` is the first action's unix time (plugins/Live/VisitorDetails.php).
    first_seen_at: fromSeconds(profile.firstVisit?.date),
    last_seen_at: last ? fromSeconds(last.lastActionTimestamp) : undefined,
    total_sessions: complete ? num(profile.totalVisits) : undefined,
    total_page_views: complete ? num(profile.totalPageViews) : undefined,
    total_events: complete ? num(profile.totalActions) : undefined,
    country: nonEmpty(country?.prettyName) ?? nonEmpty(last?.country),
    country_code: (nonEmpty(country?.country) ?? nonEmpty(last?.countryCode))?.toUpperCase(),
    city: nonEmpty(last?.city),
    language: nonEmpty(last?.languageCode),
    metadata: nonEmpty(profile.userId) ? { userId: { value: profile.userId } } : undefined,
    raw: { ...profile },
  }
}

const HEX16 = /^[0-9a-f]{16}$/i

/**
 * One Tracking API request (`matomo.php` query string) for a unified event. Matomo has no event id and
 * no de-duplication key, except `ec_id` for ecommerce orders, which must be unique (`orderId` here).
 */
export function toMatomoTrackingRequest(
  idSite: string,
  orderId: string,
  body: Readonly<Record<string, unknown>>,
): URLSearchParams {
  const p = new URLSearchParams({ idsite: idSite, rec: '1', apiv: '1', send_image: '0' })
  const str = (k: string) => (typeof body[k] === 'string' && body[k] !== '' ? (body[k] as string) : undefined)
  const url = str('page_url')
  if (url) p.set('url', url)
  const referrer = str('page_referrer')
  if (referrer) p.set('urlref', referrer)
  const visitor = str('visitor_id')
  if (visitor) {
    const bare = visitor.includes(':') ? (visitor.split(':')[1] ?? '') : visitor
    // A 16-hex id is Matomo's own visitor id, sent as the forced `cid`: with `_id` Matomo falls back to
    // the config id (this server's IP and user agent) when the visitor has no visit yet, and records the
    // action in whichever visit this server sent last, under that visitor (matomo-org/matomo@f09912cb:
    // core/Tracker/VisitorRecognizer.php shouldLookupOneVisitorFieldOnly). Anything else is a user id.
    if (HEX16.test(bare)) p.set('cid', bare.toLowerCase())
    else p.set('uid', visitor)
  }
  const created = body.created_at
  if (typeof created === 'string') {
    const d = new Date(created)
    if (!Number.isNaN(d.getTime())) p.set('cdt', String(Math.floor(d.getTime() / 1000)))
  }
  for (const [k, target] of [
    ['country_code', 'country'],
    ['region', 'region'],
    ['city', 'city'],
  ] as const) {
    const v = str(k)
    if (v) p.set(target, k === 'country_code' ? v.toLowerCase() : v)
  }
  const name = str('name')
  const type = (str('event_type') ?? 'CUSTOM') as EventType
  const value = typeof body.value === 'number' ? body.value : undefined
  switch (type) {
    case 'PAGE_VIEW':
      p.set('action_name', str('page_title') ?? name ?? '')
      break
    case 'SEARCH':
      p.set('search', name ?? '')
      break
    case 'CLICK':
      p.set('link', url ?? '')
      break
    case 'FILE_DOWNLOAD':
      p.set('download', url ?? '')
      break
    case 'PURCHASE':
      p.set('idgoal', '0')
      p.set('ec_id', orderId)
      if (value !== undefined) p.set('revenue', String(value))
      break
    default: {
      const video = type === 'VIDEO_PLAY' || type === 'VIDEO_COMPLETE'
      p.set('e_c', video ? 'Video' : 'Custom')
      p.set('e_a', type === 'VIDEO_PLAY' ? 'Play' : type === 'VIDEO_COMPLETE' ? 'Complete' : (name ?? type))
      if (video && name) p.set('e_n', name)
      if (value !== undefined) p.set('e_v', String(value))
    }
  }
  const raw = (body.raw && typeof body.raw === 'object' ? body.raw : {}) as Record<string, unknown>
  for (const [k, v] of Object.entries(raw))
    if (typeof v === 'string' || typeof v === 'number') p.set(k, String(v))
  return p
}

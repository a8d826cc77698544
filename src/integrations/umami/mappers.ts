import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { WriteBody } from '../types.js'
import type {
  UmamiActivity,
  UmamiEvent,
  UmamiSendResponse,
  UmamiSession,
  UmamiStats,
  UmamiStatValue,
  UmamiWebsite,
} from './types.js'

/**
 * Umami reads a session only under its website (`/websites/{w}/sessions/{s}`), while the unified API
 * addresses a session by id alone; so the unified session id carries both, and `raw.__id` the original.
 */
export function toUnifiedSessionId(websiteId: string, sessionId: string): string {
  return `${websiteId}:${sessionId}`
}

export function fromUnifiedSessionId(id: string): { websiteId: string; sessionId: string } | undefined {
  const [websiteId, sessionId, ...rest] = id.split(':')
  if (!websiteId || !sessionId || rest.length > 0) return undefined
  return { websiteId, sessionId }
}

const date = (value: string | null | undefined): Date | undefined => {
  if (!value) return undefined
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

const present = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value === '' ? undefined : value

export function fromUmamiWebsite(w: UmamiWebsite): UnifiedRecord {
  return {
    id: w.id,
    name: w.name,
    // Only a team is a parent one can list websites under (`/teams/{id}/websites`); a personal website has none.
    parent_id: present(w.teamId),
    created_at: date(w.createdAt),
    updated_at: date(w.updatedAt) ?? date(w.createdAt),
    raw: w,
  }
}

/** Umami websites have no timezone, currency or industry: refusing them beats dropping them silently. */
export function toUmamiWebsite(body: WriteBody, creating: boolean): Record<string, unknown> {
  for (const field of ['timezone', 'currency', 'industry'] as const) {
    if (body[field] !== undefined) {
      throw badRequest(`Umami websites have no ${field}; leave '${field}' out`)
    }
  }
  const raw = (body.raw ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = { ...raw }
  if (body.name !== undefined) out.name = body.name
  if (creating && body.parent_id !== undefined) out.teamId = body.parent_id
  if (!creating && body.parent_id !== undefined) {
    throw badRequest('Umami cannot move a website to another team through its API; leave parent_id out')
  }
  if (creating && (typeof out.name !== 'string' || typeof out.domain !== 'string')) {
    throw badRequest('Umami needs a name and a domain to create a website: send name and raw.domain')
  }
  return out
}

function searchParams(query: string | null | undefined): URLSearchParams {
  return new URLSearchParams(query ?? '')
}

function utmOf(query: string | null | undefined): Record<string, string | undefined> {
  const p = searchParams(query)
  const get = (k: string) => present(p.get(k))
  return {
    utm_source: get('utm_source'),
    utm_medium: get('utm_medium'),
    utm_campaign: get('utm_campaign'),
    utm_term: get('utm_term'),
    utm_content: get('utm_content'),
  }
}

/** Umami keeps host, path and query apart and never the scheme; https is assumed, as Umami's own UI links do. */
export function pageUrlOf(
  hostname: string | null | undefined,
  path: string,
  query: string | null | undefined,
) {
  const suffix = `${path}${query ? `?${query}` : ''}`
  return hostname ? `https://${hostname}${suffix}` : suffix
}

/**
 * Umami's event types in a website's list: pageviews (1), custom events (2, named freely) and, since v3.1,
 * performance beacons (5: web vitals sent with `type: "performance"`, no name). Link (3) and pixel (4)
 * events belong to links and pixels, not websites (umami-software/umami@v3.1.0:src/lib/constants.ts
 * `EVENT_TYPE`, src/app/api/send/route.ts). A beacon is no user action, so it is not called CUSTOM.
 */
const EVENT_TYPES: Readonly<Record<number, { type: string; name: string }>> = {
  1: { type: 'PAGE_VIEW', name: 'pageview' },
  2: { type: 'CUSTOM', name: 'event' },
  3: { type: 'LINK', name: 'link' },
  4: { type: 'PIXEL', name: 'pixel' },
  5: { type: 'PERFORMANCE', name: 'performance' },
}

export function eventTypeOf(eventType: number): string {
  return EVENT_TYPES[eventType]?.type ?? 'CUSTOM'
}

export function fromUmamiEvent(e: UmamiEvent): UnifiedRecord {
  return {
    id: e.id,
    created_at: date(e.createdAt),
    updated_at: date(e.createdAt),
    name: present(e.eventName) ?? EVENT_TYPES[e.eventType]?.name ?? 'event',
    event_type: eventTypeOf(e.eventType),
    property_id: e.websiteId,
    session_id: toUnifiedSessionId(e.websiteId, e.sessionId),
    // Event list rows carry their session's device and place, but no region or distinct id
    // (umami-software/umami@v3.1.0:src/queries/sql/events/getWebsiteEvents.ts).
    device: present(e.device),
    browser: present(e.browser),
    os: present(e.os),
    country_code: present(e.country),
    city: present(e.city),
    page_url: pageUrlOf(e.hostname, e.urlPath, e.urlQuery),
    page_title: present(e.pageTitle),
    page_referrer: present(e.referrerDomain),
    ...utmOf(e.urlQuery),
    raw: e,
  }
}

/** What an event takes from its session's detail: the visitor (only there) and device and place. */
export function eventFieldsFromUmamiSession(s: UmamiSession): UnifiedRecord {
  return {
    visitor_id: present(s.distinctId),
    device: present(s.device),
    browser: present(s.browser),
    os: present(s.os),
    country_code: present(s.country),
    region: present(s.region),
    city: present(s.city),
  }
}

export function fromUmamiActivity(websiteId: string, sessionId: string, a: UmamiActivity): UnifiedRecord {
  return fromUmamiEvent({ ...a, id: a.eventId, websiteId, sessionId })
}

export function fromUmamiSession(s: UmamiSession): UnifiedRecord {
  const start = date(s.firstAt)
  const end = date(s.lastAt)
  return {
    id: toUnifiedSessionId(s.websiteId, s.id),
    // A list row's `createdAt` is its last event's time (getWebsiteSessions.ts), so the first event's is used.
    created_at: start,
    updated_at: end,
    property_id: s.websiteId,
    // Only the session detail carries distinctId; list rows leave it to a slow read.
    visitor_id: present(s.distinctId),
    start_at: start,
    end_at: end,
    duration_seconds: start && end ? Math.round((end.getTime() - start.getTime()) / 1000) : undefined,
    page_views: s.views,
    events_count: s.events,
    device: present(s.device),
    browser: present(s.browser),
    os: present(s.os),
    // Umami stores the ISO 3166-1 alpha-2 code, not a country name.
    country: present(s.country),
    city: present(s.city),
    // Umami counts a visit of one view as a bounce.
    is_bounce: s.views === undefined ? undefined : (s.visits ?? 1) <= 1 && s.views <= 1,
    raw: { ...s, __id: s.id },
  }
}

/** Landing and exit page and the entry's source/medium/campaign, from the session's activity (slow fields). */
export function sessionFieldsFromUmamiActivity(activity: readonly UmamiActivity[]): UnifiedRecord {
  const views = activity
    .filter((a) => a.eventType === 1)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
  const first = views[0]
  const last = views[views.length - 1]
  if (!first || !last) return {}
  const utm = utmOf(first.urlQuery)
  return {
    landing_page: first.urlPath,
    exit_page: last.urlPath,
    source: utm.utm_source ?? present(first.referrerDomain),
    medium: utm.utm_medium,
    campaign: utm.utm_campaign,
  }
}

function urlParts(pageUrl: string): { hostname?: string; url: string } {
  if (/^https?:\/\//i.test(pageUrl)) {
    const u = new URL(pageUrl)
    return { hostname: u.hostname, url: `${u.pathname}${u.search}` }
  }
  return { url: pageUrl }
}

/**
 * The body of `POST /api/send`. Umami has no de-duplication key and answers no event id, so the id we
 * return is ours alone. Revenue goes into event data as `revenue`/`currency`, which Umami's revenue
 * report reads; `raw` may add payload keys Umami knows (`screen`, `language`, `tag`).
 */
export function toUmamiSend(body: WriteBody): { type: 'event'; payload: Record<string, unknown> } {
  const website = body.property_id
  if (typeof website !== 'string' || website === '') {
    throw badRequest('Umami needs property_id (the website id) to record an event')
  }
  const pageView = body.event_type === 'PAGE_VIEW'
  if (!pageView && (typeof body.name !== 'string' || body.name === '')) {
    throw badRequest('Umami needs a name for an event that is not a PAGE_VIEW')
  }
  for (const field of [
    'session_id',
    'device',
    'browser',
    'os',
    'country',
    'country_code',
    'region',
    'city',
  ]) {
    if (body[field] !== undefined) {
      throw badRequest(`Umami derives ${field} itself from the request; leave '${field}' out`)
    }
  }
  const payload: Record<string, unknown> = { website }
  if (typeof body.page_url === 'string') {
    const { hostname, url } = urlParts(withUtm(body.page_url, body))
    payload.url = url
    if (hostname) payload.hostname = hostname
  }
  if (body.page_title !== undefined) payload.title = body.page_title
  if (body.page_referrer !== undefined) payload.referrer = body.page_referrer
  if (!pageView) payload.name = body.name
  if (body.visitor_id !== undefined) payload.id = body.visitor_id
  const data: Record<string, unknown> = { ...((body.metadata as Record<string, unknown>) ?? {}) }
  if (body.value !== undefined) data.revenue = body.value
  if (body.currency !== undefined) data.currency = body.currency
  if (Object.keys(data).length > 0) payload.data = data
  Object.assign(payload, (body.raw ?? {}) as Record<string, unknown>)
  checkSendLengths(payload)
  return { type: 'event', payload }
}

/**
 * Umami stores url path, url query, referrer parts and title in 500-character columns and cuts longer
 * values without a word; a distinct id over 50 characters fails its insert (a 500). Refused here instead.
 * Source: umami-software/umami@v3.1.0:src/lib/constants.ts (URL_LENGTH, PAGE_TITLE_LENGTH),
 * src/queries/sql/events/saveEvent.ts, prisma/schema.prisma (distinct_id VARCHAR(50)).
 */
function checkSendLengths(payload: Record<string, unknown>): void {
  const tooLong = (what: string, value: unknown, max: number) => {
    if (typeof value === 'string' && value.length > max) {
      throw badRequest(`${what}: Umami keeps at most ${max} characters and would cut the rest`)
    }
  }
  const url =
    typeof payload.url === 'string' ? new URL(payload.url, 'https://placeholder.invalid') : undefined
  tooLong('page_url (path)', url?.pathname, 500)
  tooLong('page_url (query)', url?.search.slice(1), 500)
  if (typeof payload.referrer === 'string') {
    const ref = new URL(payload.referrer, 'https://placeholder.invalid')
    tooLong('page_referrer (path)', ref.pathname, 500)
    tooLong('page_referrer (query)', ref.search.slice(1), 500)
  }
  tooLong('page_title', payload.title, 500)
  tooLong('visitor_id', payload.id, 50)
}

/** Umami reads campaign tags from the page URL only, so separate utm_* fields join its query string. */
function withUtm(pageUrl: string, body: WriteBody): string {
  const tags = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].filter(
    (k) => typeof body[k] === 'string',
  )
  if (tags.length === 0) return pageUrl
  const absolute = /^https?:\/\//i.test(pageUrl)
  const u = new URL(pageUrl, 'https://placeholder.invalid')
  for (const k of tags) u.searchParams.set(k, body[k] as string)
  return absolute ? u.toString() : `${u.pathname}${u.search}`
}

export function fromUmamiSendResponse(
  id: string,
  body: WriteBody,
  sent: { payload: Record<string, unknown> },
  res: UmamiSendResponse,
  now: Date,
): UnifiedRecord {
  const p = sent.payload
  const website = p.website as string
  return {
    id,
    created_at: now,
    updated_at: now,
    name: (p.name as string | undefined) ?? 'pageview',
    event_type: p.name === undefined ? 'PAGE_VIEW' : (body.event_type ?? 'CUSTOM'),
    property_id: website,
    session_id: res.sessionId ? toUnifiedSessionId(website, res.sessionId) : undefined,
    visitor_id: body.visitor_id,
    page_url: body.page_url,
    page_title: body.page_title,
    page_referrer: body.page_referrer,
    metadata: body.metadata,
    value: body.value,
    currency: body.currency,
    ...Object.fromEntries(
      ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].map((k) => [k, body[k]]),
    ),
    raw: { ...res, __id: id },
  }
}

export function statNumber(value: UmamiStatValue | undefined): number | undefined {
  if (value === undefined) return undefined
  return typeof value === 'number' ? value : value.value
}

export type MetricValue = { type: string; value: number }

/**
 * `/stats` onto unified metrics. Bounce rate is a fraction (0-1) and durations are seconds, as everywhere
 * in Unigate; `bounces` and `totaltime` have no unified name and stay in `raw`.
 */
export function metricsFromUmamiStats(stats: UmamiStats): MetricValue[] {
  const visitors = statNumber(stats.visitors)
  const visits = statNumber(stats.visits)
  const pageviews = statNumber(stats.pageviews)
  const bounces = statNumber(stats.bounces)
  const totaltime = statNumber(stats.totaltime)
  const out: MetricValue[] = []
  const add = (type: string, value: number | undefined) => {
    if (value !== undefined && Number.isFinite(value)) out.push({ type, value })
  }
  add('USERS', visitors)
  add('SESSIONS', visits)
  add('PAGE_VIEWS', pageviews)
  if (visits) {
    add('BOUNCE_RATE', bounces === undefined ? undefined : bounces / visits)
    add('AVERAGE_SESSION_DURATION', totaltime === undefined ? undefined : totaltime / visits)
    add('PAGES_PER_SESSION', pageviews === undefined ? undefined : pageviews / visits)
  }
  return out
}

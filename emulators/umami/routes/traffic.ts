import type { FastifyInstance } from 'fastify'
import { DEFAULT_PAGE_SIZE } from '../constants.js'
import { badRequest, unauthorized } from '../errors.js'
import { intParam, pagingOf, type Query, rangeOf, strParam } from '../params.js'
import type { EventRecord, SessionRecord, UmamiState } from '../state.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** umami-software/umami@v3.1.0:src/queries/sql/sessions/getSessionActivity.ts: `limit 500`. */
export const ACTIVITY_LIMIT = 500

const HOUR_MS = 3_600_000

/**
 * The events of a website in `startAt..endAt` (both inclusive) matching Umami's common filter params.
 * `byHour`: the window is matched against each event's hour, not its instant, as a ClickHouse server's
 * reports read `website_event_stats_hourly`, whose `created_at` is `toStartOfHour(created_at)`
 * (umami-software/umami@v3.1.0:db/clickhouse/schema.sql, `website_event_stats_hourly_mv`), with
 * `created_at between {startDate} and {endDate}` (src/queries/sql/getWebsiteStats.ts): an hour counts
 * whole when it starts inside the window, not at all when it starts before it.
 */
export function eventsIn(
  state: UmamiState,
  websiteId: string,
  q: Query,
  opts: { byHour?: boolean } = {},
): EventRecord[] {
  const { startAt, endAt } = rangeOf(q)
  const at = (e: EventRecord) => (opts.byHour ? Math.floor(e.createdAt / HOUR_MS) * HOUR_MS : e.createdAt)
  // src/lib/schema.ts `filterParams`: `eventType` is any positive integer (z.coerce.number().int().positive()).
  const eventType = intParam(q, 'eventType')
  if (eventType !== undefined && !(Number.isInteger(eventType) && eventType > 0))
    throw badRequest('eventType: Number must be greater than 0')
  const search = strParam(q, 'search')?.toLowerCase()
  const distinctId = strParam(q, 'distinctId')
  const name = strParam(q, 'event')
  const path = strParam(q, 'path')
  return state.events.filter((e) => {
    if (e.websiteId !== websiteId || at(e) < startAt || at(e) > endAt) return false
    if (eventType !== undefined && e.eventType !== eventType) return false
    if (name !== undefined && e.eventName !== name) return false
    if (path !== undefined && e.urlPath !== path) return false
    if (distinctId !== undefined && state.sessions.get(e.sessionId)?.distinctId !== distinctId) return false
    // `search` matches a custom event's name or a pageview's path, nothing else, as a case-insensitive
    // substring: ClickHouse's positionCaseInsensitive, which Umami Cloud runs. On PostgreSQL the same
    // route passes the text to `ilike` without wildcards, so there it must equal the whole name or path
    // (umami-software/umami@v3.1.0:src/queries/sql/events/getWebsiteEvents.ts, both queries).
    if (search) {
      const hay = e.eventType === 2 ? (e.eventName ?? '') : e.eventType === 1 ? e.urlPath : undefined
      if (hay === undefined || !hay.toLowerCase().includes(search)) return false
    }
    return true
  })
}

/**
 * An event row of `/websites/{id}/events`: the event joined with its session's country, city, device, os
 * and browser; no distinctId, visitId, tag or region. Source:
 * umami-software/umami@v3.1.0:src/queries/sql/events/getWebsiteEvents.ts.
 */
function eventJson(state: UmamiState, e: EventRecord) {
  const s = state.sessions.get(e.sessionId)
  return {
    id: e.id,
    websiteId: e.websiteId,
    sessionId: e.sessionId,
    createdAt: iso(e.createdAt),
    hostname: e.hostname,
    urlPath: e.urlPath,
    urlQuery: e.urlQuery,
    referrerPath: null,
    referrerQuery: null,
    referrerDomain: e.referrerDomain,
    country: s?.country ?? null,
    city: s?.city ?? null,
    device: s?.device ?? null,
    os: s?.os ?? null,
    browser: s?.browser ?? null,
    pageTitle: e.pageTitle,
    eventType: e.eventType,
    eventName: e.eventName,
    hasData: e.data !== null,
  }
}

/**
 * A row of the session list: the session's attributes plus counts over the events given; no distinctId,
 * and `createdAt` is the last event's time. Source:
 * umami-software/umami@v3.1.0:src/queries/sql/sessions/getWebsiteSessions.ts.
 */
export function sessionJson(s: SessionRecord, events: readonly EventRecord[]) {
  const times = events.map((e) => e.createdAt)
  const first = times.length ? Math.min(...times) : s.createdAt
  const last = times.length ? Math.max(...times) : s.createdAt
  return {
    id: s.id,
    websiteId: s.websiteId,
    hostname: s.hostname,
    browser: s.browser,
    os: s.os,
    device: s.device,
    screen: s.screen,
    language: s.language,
    country: s.country,
    region: s.region,
    city: s.city,
    firstAt: iso(first),
    lastAt: iso(last),
    visits: new Set(events.map((e) => e.visitId)).size,
    views: events.filter((e) => e.eventType === 1).length,
    events: events.filter((e) => e.eventType === 2).length,
    createdAt: iso(last),
  }
}

/** `{data, count, page, pageSize}`, pages from 1 (umami-software/umami@v3.1.0:src/lib/prisma.ts `pagedRawQuery`). */
function page<T>(rows: readonly T[], q: Query) {
  const { page, pageSize } = pagingOf(q, DEFAULT_PAGE_SIZE)
  return { data: rows.slice((page - 1) * pageSize, page * pageSize), count: rows.length, page, pageSize }
}

function websiteOf(state: UmamiState, params: unknown): string {
  const { websiteId } = params as { websiteId: string }
  if (!state.liveWebsite(websiteId)) throw unauthorized()
  return websiteId
}

/** The session, or undefined for one the website does not have (Umami then answers 200 with `{}`). */
function sessionOf(state: UmamiState, params: unknown): SessionRecord | undefined {
  const websiteId = websiteOf(state, params)
  const s = state.sessions.get((params as { sessionId: string }).sessionId)
  return s && s.websiteId === websiteId ? s : undefined
}

export function registerTrafficRoutes(app: FastifyInstance, state: UmamiState): void {
  app.get('/websites/:websiteId/events', async (request) => {
    const websiteId = websiteOf(state, request.params)
    // Newest first (getWebsiteEvents.ts: `order by website_event.created_at desc`).
    const rows = eventsIn(state, websiteId, request.query as Query).reverse()
    const result = page(rows, request.query as Query)
    return { ...result, data: result.data.map((e) => eventJson(state, e)) }
  })

  app.get('/websites/:websiteId/sessions', async (request) => {
    const websiteId = websiteOf(state, request.params)
    const q = request.query as Query
    const bySession = new Map<string, EventRecord[]>()
    for (const e of eventsIn(state, websiteId, { ...q, search: undefined })) {
      const list = bySession.get(e.sessionId) ?? []
      list.push(e)
      bySession.set(e.sessionId, list)
    }
    const search = strParam(q, 'search')?.toLowerCase()
    // getWebsiteSessions.ts: search is `ilike` on distinct_id, city, browser, os or device.
    const matches = (s: SessionRecord) =>
      !search ||
      [s.distinctId, s.city, s.browser, s.os, s.device].some((v) => v?.toLowerCase().includes(search))
    const rows = [...bySession.entries()]
      .filter(([id]) => matches(state.sessions.get(id) as SessionRecord))
      .map(([id, events]) => sessionJson(state.sessions.get(id) as SessionRecord, events))
      // Last seen first (getWebsiteSessions.ts: `order by max(website_event.created_at) desc`).
      .sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : a.id < b.id ? -1 : 1))
    return page(rows, q)
  })

  /**
   * Session detail: the only read that carries `distinctId`; `totaltime` sums each visit's first-to-last
   * seconds; no hostname or createdAt; `{}` for an unknown session. Source:
   * umami-software/umami@v3.1.0:src/queries/sql/sessions/getWebsiteSession.ts.
   */
  app.get('/websites/:websiteId/sessions/:sessionId', async (request) => {
    const s = sessionOf(state, request.params)
    if (!s) return {}
    const events = state.events.filter((e) => e.sessionId === s.id)
    const visits = new Map<string, number[]>()
    for (const e of events) visits.set(e.visitId, [...(visits.get(e.visitId) ?? []), e.createdAt])
    const totaltime = [...visits.values()].reduce(
      (sum, t) => sum + Math.floor((Math.max(...t) - Math.min(...t)) / 1000),
      0,
    )
    const { hostname: _h, createdAt: _c, ...json } = sessionJson(s, events)
    return { ...json, distinctId: s.distinctId, totaltime }
  })

  app.get('/websites/:websiteId/sessions/:sessionId/activity', async (request) => {
    const { startAt, endAt } = rangeOf(request.query as Query)
    const s = sessionOf(state, request.params)
    if (!s) return []
    // Newest first and at most 500 rows (getSessionActivity.ts: `order by created_at desc limit 500`).
    return state.events
      .filter((e) => e.sessionId === s.id && e.createdAt >= startAt && e.createdAt <= endAt)
      .reverse()
      .slice(0, ACTIVITY_LIMIT)
      .map((e) => ({
        createdAt: iso(e.createdAt),
        urlPath: e.urlPath,
        urlQuery: e.urlQuery,
        referrerDomain: e.referrerDomain,
        eventId: e.id,
        eventType: e.eventType,
        eventName: e.eventName,
        visitId: e.visitId,
        hasData: e.data !== null,
        hostname: e.hostname,
      }))
  })
}

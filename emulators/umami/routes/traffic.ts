import type { FastifyInstance } from 'fastify'
import { DEFAULT_PAGE_SIZE } from '../constants.js'
import { badRequest, notFound } from '../errors.js'
import { intParam, pagingOf, type Query, rangeOf, strParam } from '../params.js'
import type { EventRecord, SessionRecord, UmamiState } from '../state.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** The events of a website in `startAt..endAt` (both inclusive) matching Umami's common filter params. */
export function eventsIn(state: UmamiState, websiteId: string, q: Query): EventRecord[] {
  const { startAt, endAt } = rangeOf(q)
  const eventType = intParam(q, 'eventType')
  if (eventType !== undefined && eventType !== 1 && eventType !== 2)
    throw badRequest('eventType: Expected 1 | 2')
  const search = strParam(q, 'search')?.toLowerCase()
  const distinctId = strParam(q, 'distinctId')
  const name = strParam(q, 'event')
  const path = strParam(q, 'path')
  return state.events.filter((e) => {
    if (e.websiteId !== websiteId || e.createdAt < startAt || e.createdAt > endAt) return false
    if (eventType !== undefined && e.eventType !== eventType) return false
    if (name !== undefined && e.eventName !== name) return false
    if (path !== undefined && e.urlPath !== path) return false
    if (distinctId !== undefined && state.sessions.get(e.sessionId)?.distinctId !== distinctId) return false
    if (search) {
      const hay = `${e.urlPath} ${e.eventName ?? ''} ${e.pageTitle ?? ''}`.toLowerCase()
      if (!hay.includes(search)) return false
    }
    return true
  })
}

function eventJson(state: UmamiState, e: EventRecord) {
  return {
    id: e.id,
    websiteId: e.websiteId,
    sessionId: e.sessionId,
    visitId: e.visitId,
    createdAt: iso(e.createdAt),
    urlPath: e.urlPath,
    urlQuery: e.urlQuery,
    referrerPath: null,
    referrerQuery: null,
    referrerDomain: e.referrerDomain,
    pageTitle: e.pageTitle,
    eventType: e.eventType,
    eventName: e.eventName,
    hostname: e.hostname,
    tag: e.tag,
    distinctId: state.sessions.get(e.sessionId)?.distinctId ?? null,
  }
}

/** A session as Umami shows it: the session's attributes plus counts over the events given. */
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
    createdAt: iso(s.createdAt),
    distinctId: s.distinctId,
  }
}

function page<T>(rows: readonly T[], q: Query) {
  const { page, pageSize } = pagingOf(q, DEFAULT_PAGE_SIZE)
  return { data: rows.slice((page - 1) * pageSize, page * pageSize), count: rows.length, page, pageSize }
}

function websiteOf(state: UmamiState, params: unknown): string {
  const { websiteId } = params as { websiteId: string }
  if (!state.liveWebsite(websiteId)) throw notFound()
  return websiteId
}

function sessionOf(state: UmamiState, params: unknown): SessionRecord {
  const websiteId = websiteOf(state, params)
  const s = state.sessions.get((params as { sessionId: string }).sessionId)
  if (!s || s.websiteId !== websiteId) throw notFound()
  return s
}

export function registerTrafficRoutes(app: FastifyInstance, state: UmamiState): void {
  app.get('/websites/:websiteId/events', async (request) => {
    const websiteId = websiteOf(state, request.params)
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
    const rows = [...bySession.entries()]
      .map(([id, events]) => sessionJson(state.sessions.get(id) as SessionRecord, events))
      .filter(
        (s) =>
          !search ||
          `${s.browser} ${s.os} ${s.city} ${s.country} ${s.distinctId ?? ''}`.toLowerCase().includes(search),
      )
      .sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : a.id < b.id ? -1 : 1))
    return page(rows, q)
  })

  app.get('/websites/:websiteId/sessions/:sessionId', async (request) => {
    const s = sessionOf(state, request.params)
    const events = state.events.filter((e) => e.sessionId === s.id)
    const json = sessionJson(s, events)
    return { ...json, totaltime: Math.round((Date.parse(json.lastAt) - Date.parse(json.firstAt)) / 1000) }
  })

  app.get('/websites/:websiteId/sessions/:sessionId/activity', async (request) => {
    const s = sessionOf(state, request.params)
    const { startAt, endAt } = rangeOf(request.query as Query)
    return state.events
      .filter((e) => e.sessionId === s.id && e.createdAt >= startAt && e.createdAt <= endAt)
      .reverse()
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

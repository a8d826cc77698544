import { randomUUID } from 'node:crypto'
import pMap from 'p-map'
import { ApiError, badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { pageWindow, readWindow } from '../page-window.js'
import { RECORD_READS_AT_ONCE } from '../record-reads.js'
import { sharedText } from '../shared-text.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { collectUrlOf } from './hosting.js'
import {
  eventFieldsFromUmamiSession,
  fromUmamiActivity,
  fromUmamiEvent,
  fromUmamiSendResponse,
  fromUnifiedSessionId,
  toUmamiSend,
} from './mappers.js'
import { readActivity, readSession } from './session-reads.js'
import { umamiRange } from './time-range.js'
import type { UmamiEvent, UmamiPage, UmamiSendResponse } from './types.js'
import { onWebsite } from './website-access.js'

/**
 * Event rows carry their session's device, os, browser, country and city already, but neither region nor
 * the visitor's distinct id: those two need one session read per distinct session
 * (umami-software/umami@v3.1.0:src/queries/sql/events/getWebsiteEvents.ts, sessions/getWebsiteSession.ts).
 */
export const EVENT_SLOW_FIELDS = ['visitor_id', 'region'] as const

/** Umami's event types in a website's list (mappers.ts `EVENT_TYPES`): nothing finer. */
const EVENT_TYPE_CODES: Readonly<Record<string, number>> = { PAGE_VIEW: 1, CUSTOM: 2, PERFORMANCE: 5 }

/**
 * A browser-like User-Agent: Umami reads the visitor's browser, OS and device from it and silently drops
 * what the `isbot` package flags (words such as "bot", or a URL), answering `{beep: "boop"}`
 * (umami-software/umami@v3.1.0:src/app/api/send/route.ts, src/lib/detect.ts).
 */
const SEND_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Unigate/0.1'

function eventTypeCode(type: string | Date | undefined): number | undefined {
  if (typeof type !== 'string') return undefined
  const code = EVENT_TYPE_CODES[type.toUpperCase()]
  if (code === undefined) {
    throw badRequest(
      `type: Umami classifies events only as PAGE_VIEW, CUSTOM or PERFORMANCE, not '${type}'; ` +
        'to filter custom events by name, add raw=event%3D<name>',
    )
  }
  return code
}

function websiteOf(q: ListQuery, session: { websiteId: string } | undefined): string {
  const property = q.filters.property_id
  if (typeof property === 'string') return property
  if (session) return session.websiteId
  throw badRequest('Umami lists events per website: give property_id (or a session_id)')
}

/**
 * What an event list asks Umami, from the query alone: the website, the session if one is named, and the
 * event type code; a 400 naming the filter Umami cannot list by.
 */
function eventsAsked(q: ListQuery) {
  const sessionFilter = q.filters.session_id
  const session = typeof sessionFilter === 'string' ? fromUnifiedSessionId(sessionFilter) : undefined
  if (typeof sessionFilter === 'string' && !session) {
    throw badRequest(
      `session_id: '${sessionFilter}' is not an Umami session id of this API (<website>:<session>)`,
    )
  }
  const website = websiteOf(q, session)
  return { session, website, typeCode: eventTypeCode(q.filters.type) }
}

/**
 * Umami's event list has no session filter (see listSessionEvents): a session's events are its activity,
 * which takes no visitor and no text query.
 */
function checkSessionEventsAsked(q: ListQuery): void {
  for (const param of ['visitor_id', 'query'] as const) {
    if ((param === 'query' ? q.query : q.filters[param]) !== undefined) {
      throw badRequest(`Umami cannot combine session_id with ${param} when listing events; drop one of them`)
    }
  }
}

async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { session, website, typeCode } = eventsAsked(q)
  // Umami reads `type` as its one `eventType`: a raw one beside it would replace it without a word.
  if (typeCode !== undefined && ctx.rawParams.eventType !== undefined)
    throw badRequest('raw: eventType and type both filter Umami events by eventType; send one or the other')
  const range = umamiRange(q, undefined)
  if (session) {
    if (session.websiteId !== website) return []
    return onWebsite(ctx, website, () =>
      listSessionEvents(ctx, q, website, session.sessionId, typeCode, range),
    )
  }
  const path = `/websites/${encodeURIComponent(website)}/events`
  const rows = await onWebsite(ctx, website, () =>
    readWindow(pageWindow(q.offset, q.limit), q.limit, async (page, pageSize) => {
      const res = await ctx.client.json<UmamiPage<UmamiEvent>>({
        path,
        query: {
          startAt: range.startAt,
          endAt: range.endAt,
          page,
          pageSize,
          search: q.query,
          distinctId: typeof q.filters.visitor_id === 'string' ? q.filters.visitor_id : undefined,
          eventType: typeCode,
          ...ctx.rawParams,
        },
      })
      return res.data
    }),
  )
  const visitor = typeof q.filters.visitor_id === 'string' ? q.filters.visitor_id : undefined
  // Filtered by distinct id at Umami, every row is that visitor's: no session read needed for it.
  const events = rows.map((e) =>
    visitor ? { ...fromUmamiEvent(e), visitor_id: visitor } : fromUmamiEvent(e),
  )
  return withSessionFields(ctx, events, visitor ? ['region'] : EVENT_SLOW_FIELDS)
}

/**
 * Umami's event list has no session filter; a session's events come from its activity (read whole, see
 * readActivity), so offset and limit are cut here. Activity rows carry no visitor, title, device or
 * place: the one session's detail supplies all but the title.
 */
async function listSessionEvents(
  ctx: HandlerContext,
  q: ListQuery,
  websiteId: string,
  sessionId: string,
  typeCode: number | undefined,
  range: { startAt: number; endAt: number },
): Promise<UnifiedRecord[]> {
  checkSessionEventsAsked(q)
  const activity = await readActivity(ctx, websiteId, sessionId, range)
  const events = activity
    .filter((a) => typeCode === undefined || a.eventType === typeCode)
    .slice(q.offset, q.offset + q.limit)
    .map((a) => fromUmamiActivity(websiteId, sessionId, a))
  if (events.length === 0) return events
  const fields = sessionFieldsOnEvents(await readSession(ctx, websiteId, sessionId))
  return events.map((e) => ({ ...e, ...fields }))
}

/**
 * A session's fields as its events carry them, each text held to SHARED_TEXT_LENGTH (shared-text.ts): they are
 * copied onto every event of the session.
 */
function sessionFieldsOnEvents(session: Parameters<typeof eventFieldsFromUmamiSession>[0]): UnifiedRecord {
  const fields = eventFieldsFromUmamiSession(session)
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') sharedText(value, 'Umami', `session's ${key}`)
  }
  return fields
}

/** Fills the slow fields asked for (among `fields`), reading each distinct session once. */
async function withSessionFields(
  ctx: HandlerContext,
  events: UnifiedRecord[],
  fields: readonly string[],
): Promise<UnifiedRecord[]> {
  const asked = fields.filter((f) => ctx.fields.slow.has(f))
  if (asked.length === 0) return events
  const sessions = new Map<string, Promise<UnifiedRecord>>()
  const fieldsOf = (website: string, session: string) => {
    const key = `${website}:${session}`
    let found = sessions.get(key)
    if (!found) {
      found = readSession(ctx, website, session).then(sessionFieldsOnEvents)
      sessions.set(key, found)
    }
    return found
  }
  return pMap(
    events,
    async (e) => {
      const ids = fromUnifiedSessionId(String(e.session_id))
      if (!ids) return e
      const found = await fieldsOf(ids.websiteId, ids.sessionId)
      return { ...e, ...Object.fromEntries(asked.map((f) => [f, found[f]])) }
    },
    { concurrency: RECORD_READS_AT_ONCE },
  )
}

/**
 * The collector's payload fields a raw parameter of an event create may set
 * (umami-software/umami@3a72b25:src/app/api/send/request-schema.ts). The collector reads nothing but its JSON
 * body, so the raw parameters join the payload, as text; those below are filled from unified fields instead.
 * Its schema drops any other key without a word, so another name is a 400, not a parameter lost.
 */
const RAW_SEND_FIELDS = ['hostname', 'language', 'screen', 'ip', 'userAgent', 'tag']
const SEND_FIELD_OF_UNIFIED: Readonly<Record<string, string>> = {
  website: 'property_id',
  url: 'page_url',
  title: 'page_title',
  referrer: 'page_referrer',
  name: 'name',
  id: 'visitor_id',
  data: 'metadata',
}

/** The payload with the caller's raw parameters added; a name it cannot take, or takes already, is a 400. */
function withRawSendFields(
  payload: Readonly<Record<string, unknown>>,
  raw: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...payload }
  for (const [name, value] of Object.entries(raw)) {
    const unified = Object.hasOwn(SEND_FIELD_OF_UNIFIED, name) ? SEND_FIELD_OF_UNIFIED[name] : undefined
    if (unified !== undefined)
      throw badRequest(`raw: '${name}' is what Umami's collector reads ${unified} as; use ${unified}`)
    if (!RAW_SEND_FIELDS.includes(name)) {
      throw badRequest(
        `raw: Umami's collector takes no '${name}' (it drops unknown payload fields); an event's raw parameters ` +
          `join its payload, which takes ${RAW_SEND_FIELDS.join(', ')}`,
      )
    }
    if (out[name] !== undefined) {
      throw badRequest(
        `raw: '${name}' is already set in the event sent to Umami (from page_url or the body's raw); give it once`,
      )
    }
    out[name] = value
  }
  return out
}

async function createEvent(ctx: HandlerContext, body: Readonly<Record<string, unknown>>) {
  const built = toUmamiSend(body)
  const sent = { ...built, payload: withRawSendFields(built.payload, ctx.rawParams) }
  const collector = collectUrlOf(ctx.credentials)
  // The collector takes no credentials (the website id is in the body; umami-software/umami@072726d
  // src/app/api/send/route.ts parses it with `skipAuth: true`), and may be another host (Cloud's, or `collect_url`, which the
  // connection's verification never contacted): the API key is not sent there.
  const res = await ctx.client.json<UmamiSendResponse>({
    method: 'POST',
    path: collector,
    baseUrl: collector,
    authenticate: false,
    body: sent,
    headers: { 'user-agent': SEND_USER_AGENT },
  })
  if (res && typeof res === 'object' && 'beep' in res) {
    throw new ApiError(
      502,
      'Umami dropped the event as bot traffic; send a browser User-Agent in raw.userAgent',
    )
  }
  // Umami answers no event id and has no de-duplication key: the id is ours, returned for the caller's records.
  return fromUmamiSendResponse(randomUUID(), body, sent, res ?? {}, new Date())
}

export const eventHandlers: ObjectHandlers = {
  listParams: ['query'],
  filters: ['property_id', 'session_id', 'visitor_id', 'type', 'start_gte', 'end_lt'],
  slowFields: [...EVENT_SLOW_FIELDS],
  list: listEvents,
  // A raw eventType beside type is refused by the list (a webhook takes no raw parameters).
  checkList: (q) => {
    const { session, website } = eventsAsked(q)
    // The list answers nothing for a session of another website, before this rule.
    if (session && session.websiteId === website) checkSessionEventsAsked(q)
  },
  create: createEvent,
  // Umami reads these as the unified filters: a raw one would silently replace the caller's.
  rawOwned: { search: 'use query', distinctId: 'use visitor_id' },
}

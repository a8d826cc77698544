import type { FastifyInstance } from 'fastify'
import { channelOf } from '../channels.js'
import {
  ACTIVE_WINDOW_MS,
  EVENT_COLUMNS,
  METRIC_TYPES,
  METRICS_DEFAULT_LIMIT,
  type UmamiDatabase,
  UNITS,
} from '../constants.js'
import { badRequest, schemaError, UmamiHttpError, unauthorized } from '../errors.js'
import { type Query, rangeOf, strParam } from '../params.js'
import type { EventRecord, SessionRecord, UmamiState } from '../state.js'
import { effectiveUnit } from '../units.js'
import { eventsIn } from './traffic.js'

function websiteOf(state: UmamiState, params: unknown): string {
  const { websiteId } = params as { websiteId: string }
  if (!state.liveWebsite(websiteId)) throw unauthorized()
  return websiteId
}

/**
 * `/stats` totals, over pageview-type events only (`event_type NOT IN (2, 5)`): visitors are distinct
 * sessions, visits distinct visits, a bounce a visit of exactly one view, totaltime the sum of each
 * visit's first-to-last seconds. Source: umami-software/umami@v3.1.0:src/queries/sql/getWebsiteStats.ts.
 */
function totals(all: readonly EventRecord[]) {
  const events = all.filter((e) => e.eventType === 1)
  const visits = new Map<string, EventRecord[]>()
  for (const e of events) visits.set(e.visitId, [...(visits.get(e.visitId) ?? []), e])
  let bounces = 0
  let totaltime = 0
  for (const list of visits.values()) {
    if (list.length === 1) bounces++
    const times = list.map((e) => e.createdAt)
    // `floor(extract(epoch from (max_time - min_time)))` per visit (src/lib/prisma.ts getTimestampDiffSQL).
    totaltime += Math.floor((Math.max(...times) - Math.min(...times)) / 1000)
  }
  return {
    pageviews: events.length,
    visitors: new Set(events.map((e) => e.sessionId)).size,
    visits: visits.size,
    bounces,
    totaltime,
  }
}

/** Local wall-clock parts of an instant in an IANA timezone. */
function localParts(ms: number, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(ms)
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00'
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour'), min: get('minute') }
}

/**
 * Bucket label as PostgreSQL Umami formats it: ISO (`2024-05-01T00:00:00Z`) only when the timezone is
 * absent or exactly `utc`, else local `2024-05-01 00:00:00` (so `timezone=UTC` gets the local form).
 * Source: umami-software/umami@v3.1.0:src/lib/prisma.ts `getDateSQL`, `DATE_FORMATS`, `DATE_FORMATS_UTC`.
 */
function bucketOf(ms: number, unit: string, timeZone: string): string {
  const p = localParts(ms, timeZone)
  const [m, d, h, min] =
    unit === 'year'
      ? ['01', '01', '00', '00']
      : unit === 'month'
        ? [p.m, '01', '00', '00']
        : unit === 'day'
          ? [p.m, p.d, '00', '00']
          : unit === 'hour'
            ? [p.m, p.d, p.h, '00']
            : [p.m, p.d, p.h, p.min]
  return timeZone === 'utc' ? `${p.y}-${m}-${d}T${h}:${min}:00Z` : `${p.y}-${m}-${d} ${h}:${min}:00`
}

/** `z.coerce.number()`: anything numeric, rounded as PostgreSQL rounds a LIMIT; not a number is a 400. */
function sqlNumber(q: Query, name: string): number | undefined {
  const raw = strParam(q, name)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (Number.isNaN(n)) {
    throw schemaError([], { [name]: { errors: ['Invalid input: expected number, received NaN'] } })
  }
  return Math.round(n)
}

const MINUTE_MS = 60_000
/** getCompareDate('prev'): both ends back by differenceInMinutes(end, start), whole minutes truncated. */
const minutesBefore = (startAt: number, endAt: number) => {
  const shift = Math.trunc((endAt - startAt) / MINUTE_MS) * MINUTE_MS
  return (at: number) => at - shift
}
/** getCompareDate('yoy'): date-fns subYears, the same wall-clock day a year earlier (UTC server). */
const yearBefore = (at: number) => {
  const d = new Date(at)
  const month = d.getUTCMonth()
  d.setUTCFullYear(d.getUTCFullYear() - 1)
  // 29 February has no match a year earlier: date-fns keeps the month (28 February), Date rolls over.
  if (d.getUTCMonth() !== month) d.setUTCDate(0)
  return d.getTime()
}

/** src/lib/schema.ts `timezoneParam`: a zone Intl knows (after Umami's alias mapping), else 400. */
function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
  } catch {
    throw badRequest(`timezone: Invalid timezone '${tz}'`)
  }
}

const SESSION_TYPES: Readonly<Record<string, keyof SessionRecord>> = {
  browser: 'browser',
  os: 'os',
  device: 'device',
  screen: 'screen',
  language: 'language',
  country: 'country',
  region: 'region',
  city: 'city',
  distinctId: 'distinctId',
}

function utm(e: EventRecord, key: string): string | null {
  return new URLSearchParams(e.urlQuery ?? '').get(key)
}

/** The value an event contributes to a page-level breakdown, or null when it has none. */
function eventKey(type: string, e: EventRecord): string | null {
  switch (type) {
    case 'path':
      return e.urlPath
    case 'title':
      return e.pageTitle
    case 'query':
      return e.urlQuery
    case 'hostname':
      return e.hostname
    case 'referrer':
    case 'domain':
      return e.referrerDomain
    case 'event':
      return e.eventType === 2 ? e.eventName : null
    case 'tag':
      return e.tag
    case 'utmSource':
      return utm(e, 'utm_source')
    case 'utmMedium':
      return utm(e, 'utm_medium')
    case 'utmCampaign':
      return utm(e, 'utm_campaign')
    case 'utmContent':
      return utm(e, 'utm_content')
    case 'utmTerm':
      return utm(e, 'utm_term')
    default:
      return null
  }
}

/**
 * `[{x, y}]`, biggest first. Since v2.19 every breakdown but `event` counts distinct sessions (Umami's
 * visitors) over pageview-type events (`event_type NOT IN (2, 5)`), entry/exit by each visit's first/last
 * page; `event` counts custom events (`count(*)`). Referrers exclude the site's own host. Sources:
 * umami-software/umami@v3.1.0:src/queries/sql/pageviews/getPageviewMetrics.ts,
 * src/queries/sql/sessions/getSessionMetrics.ts, src/queries/sql/events/getEventMetrics.ts.
 */
function metricRows(state: UmamiState, events: readonly EventRecord[], type: string) {
  const counts = new Map<string, Set<string> | number>()
  const bump = (key: string | null, unique?: string) => {
    if (key === null || key === '') return
    if (unique === undefined) counts.set(key, ((counts.get(key) as number | undefined) ?? 0) + 1)
    else {
      const set = (counts.get(key) as Set<string> | undefined) ?? new Set<string>()
      set.add(unique)
      counts.set(key, set)
    }
  }
  const views = events.filter((x) => x.eventType === 1)
  const sessionField = SESSION_TYPES[type]
  if (type === 'channel') {
    for (const e of views) {
      const query = new URLSearchParams(e.urlQuery ?? '')
      const channel = channelOf({
        referrerDomain: e.referrerDomain ?? '',
        urlQuery: e.urlQuery ?? '',
        utmMedium: query.get('utm_medium') ?? '',
        utmSource: query.get('utm_source') ?? '',
        hostname: e.hostname,
      })
      bump(channel, e.sessionId)
    }
  } else if (type === 'event') {
    for (const e of events) if (e.eventType === 2) bump(e.eventName)
  } else if (sessionField) {
    // City and region rows are per (value, country) and carry `country` (getSessionMetrics.ts
    // `includeCountry`): the key holds both, split again below.
    const withCountry = type === 'city' || type === 'region'
    for (const e of views) {
      const s = state.sessions.get(e.sessionId)
      const stored = (s?.[sessionField] as string | null) ?? null
      // `language` is grouped by its first two letters, lower-cased (getSessionMetrics.ts
      // `lower(left(language, 2))`): en-US and en-GB are one row, `en`.
      const value = type === 'language' && stored !== null ? stored.slice(0, 2).toLowerCase() : stored
      bump(withCountry && value ? `${value}\u0000${s?.country ?? ''}` : value, e.sessionId)
    }
  } else if (type === 'entry' || type === 'exit') {
    const byVisit = new Map<string, EventRecord[]>()
    for (const e of views) byVisit.set(e.visitId, [...(byVisit.get(e.visitId) ?? []), e])
    for (const list of byVisit.values()) {
      const sorted = [...list].sort((a, b) => a.createdAt - b.createdAt)
      const edge = type === 'entry' ? sorted[0] : sorted[sorted.length - 1]
      if (edge) bump(edge.urlPath, edge.sessionId)
    }
  } else {
    for (const e of views) {
      // getPageviewMetrics.ts: `referrer_domain != regexp_replace(hostname, '^www.', '')`
      if (type === 'referrer' && e.referrerDomain === e.hostname.replace(/^www\./, '')) continue
      bump(eventKey(type, e), e.sessionId)
    }
  }
  return [...counts.entries()]
    .map(([key, v]) => {
      const [x, country] = key.split('\u0000') as [string, string | undefined]
      return { x, y: typeof v === 'number' ? v : v.size, ...(country === undefined ? {} : { country }) }
    })
    .sort((a, b) => b.y - a.y || (a.x < b.x ? -1 : 1))
}

/**
 * Whether a ClickHouse server answers this report from `website_event_stats_hourly`, so the window
 * selects whole hours (see eventsIn): yes unless a filter names an event column (or the breakdown's own
 * column is searched), or the series is by minute (umami-software/umami@v3.1.0:
 * src/queries/sql/getWebsiteStats.ts, pageviews/getPageviewStats.ts, sessions/getSessionStats.ts,
 * pageviews/getPageviewMetrics.ts, sessions/getSessionMetrics.ts: `EVENT_COLUMNS.some(...)`,
 * `unit === 'minute'`; src/app/api/websites/[websiteId]/metrics/route.ts puts `search` in
 * `filters[type]`). PostgreSQL reads `website_event` always.
 */
function byHour(database: UmamiDatabase, q: Query, searched?: string): boolean {
  if (database !== 'clickhouse') return false
  const keys = new Set(Object.keys(q).filter((k) => strParam(q, k) !== undefined))
  if (searched) keys.add(searched)
  return !EVENT_COLUMNS.some((c) => keys.has(c))
}

export function registerReportRoutes(
  app: FastifyInstance,
  state: UmamiState,
  database: UmamiDatabase = 'postgresql',
): void {
  /**
   * `/stats`: the totals and, as `comparison`, the same totals over the window `compare` names: `prev`
   * (default) shifts both ends back by the range's length in whole minutes (date-fns
   * `differenceInMinutes`, truncated), so the windows may overlap by up to a minute; `yoy` is a year
   * earlier. Sources: umami-software/umami@v3.1.0:src/app/api/websites/[websiteId]/stats/route.ts,
   * src/lib/date.ts `getCompareDate`, src/lib/schema.ts `dateRangeParams.compare`.
   */
  app.get('/websites/:websiteId/stats', async (request) => {
    const q = request.query as Query
    const { startAt, endAt } = rangeOf(q)
    const compare = strParam(q, 'compare') ?? 'prev'
    if (compare !== 'prev' && compare !== 'yoy') {
      throw schemaError([], { compare: { errors: ['Invalid option: expected one of "prev"|"yoy"'] } })
    }
    const websiteId = websiteOf(state, request.params)
    const hourly = { byHour: byHour(database, q) }
    const current = totals(eventsIn(state, websiteId, q, hourly))
    const shifted = compare === 'yoy' ? yearBefore : minutesBefore(startAt, endAt)
    const previous = totals(
      eventsIn(
        state,
        websiteId,
        { ...q, startAt: String(shifted(startAt)), endAt: String(shifted(endAt)) },
        hourly,
      ),
    )
    return { ...current, comparison: previous }
  })

  // umami-software/umami@v3.1.0:src/app/api/websites/[websiteId]/pageviews/route.ts
  app.get('/websites/:websiteId/pageviews', async (request) => {
    const q = request.query as Query
    const { startAt, endAt } = rangeOf(q)
    const asked = strParam(q, 'unit')
    // src/lib/schema.ts `unitParam`: one of UNIT_TYPES, else 400 "Invalid unit".
    if (asked !== undefined && !(UNITS as readonly string[]).includes(asked)) {
      throw badRequest(`unit: Invalid unit. Expected ${UNITS.map((u) => `'${u}'`).join(' | ')}`)
    }
    const timezone = strParam(q, 'timezone') ?? 'utc'
    checkTimezone(timezone)
    const websiteId = websiteOf(state, request.params)
    // A unit too fine for the range is replaced without a word (src/lib/request.ts getRequestDateRange).
    const unit = effectiveUnit(asked, startAt, endAt, state.options.release)
    // Both series count pageview-type events only (`event_type NOT IN (2, 5)`): `pageviews` is count(*),
    // `sessions` is count(distinct session_id), i.e. visitors, not visits. Sources: v3.1.0
    // src/queries/sql/pageviews/getPageviewStats.ts and src/queries/sql/sessions/getSessionStats.ts.
    const hourly = { byHour: unit !== 'minute' && byHour(database, q) }
    const events = eventsIn(state, websiteId, q, hourly).filter((e) => e.eventType === 1)
    const views = new Map<string, number>()
    const sessions = new Map<string, Set<string>>()
    for (const e of events) {
      const x = bucketOf(e.createdAt, unit, timezone)
      views.set(x, (views.get(x) ?? 0) + 1)
      sessions.set(x, (sessions.get(x) ?? new Set()).add(e.sessionId))
    }
    const series = (m: Map<string, number>) =>
      [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([x, y]) => ({ x, y }))
    return {
      pageviews: series(views),
      sessions: series(new Map([...sessions.entries()].map(([x, s]) => [x, s.size]))),
    }
  })

  /**
   * `/metrics`: `type` is any string in the schema and an unknown one a bare 400 "Bad request" after the
   * access check; `limit`/`offset` are plain numbers (500 and 0 by default) put into the SQL, so a negative
   * one fails in the database (500); `search` narrows the breakdown's own column (`c.` = contains,
   * case-insensitive). Sources: umami-software/umami@v3.1.0:src/app/api/websites/[websiteId]/metrics/route.ts,
   * src/queries/sql/pageviews/getPageviewMetrics.ts.
   */
  app.get('/websites/:websiteId/metrics', async (request) => {
    const q = request.query as Query
    const type = strParam(q, 'type')
    if (type === undefined) {
      throw schemaError([], { type: { errors: ['Invalid input: expected string, received undefined'] } })
    }
    const limit = sqlNumber(q, 'limit') ?? METRICS_DEFAULT_LIMIT
    const offset = sqlNumber(q, 'offset') ?? 0
    rangeOf(q)
    const websiteId = websiteOf(state, request.params)
    if (!(METRIC_TYPES as readonly string[]).includes(type)) throw badRequest('Bad request')
    if (limit < 0 || offset < 0) throw new UmamiHttpError(500)
    const search = strParam(q, 'search')?.toLowerCase()
    // `event` (getEventMetrics.ts) and `channel` (getChannelMetrics.ts) read `website_event` on ClickHouse too.
    const hourly = {
      byHour: type !== 'event' && type !== 'channel' && byHour(database, q, search ? type : undefined),
    }
    const rows = metricRows(state, eventsIn(state, websiteId, q, hourly), type).filter(
      (row) => !search || row.x.toLowerCase().includes(search),
    )
    return rows.slice(offset, offset + limit)
  })

  // Distinct sessions with an event in the last 5 minutes (src/queries/sql/getActiveVisitors.ts).
  app.get('/websites/:websiteId/active', async (request) => {
    const websiteId = websiteOf(state, request.params)
    const since = Date.now() - ACTIVE_WINDOW_MS
    const sessions = new Set(
      state.events.filter((e) => e.websiteId === websiteId && e.createdAt >= since).map((e) => e.sessionId),
    )
    return { visitors: sessions.size }
  })
}

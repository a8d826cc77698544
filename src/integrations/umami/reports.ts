import { badRequest, notImplemented } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { reportParamsOf } from '../report-params.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { hostingOf } from './hosting.js'
import { metricsFromUmamiStats } from './mappers.js'
import {
  BREAKDOWNS,
  bucketEnd,
  bucketLabel,
  parseBucket,
  SERIES_METRICS,
  STATS_METRICS,
  TIME_UNITS,
  type UmamiUnit,
} from './report-mapping.js'
import { seriesPieces } from './series-pieces.js'
import { DAY_MS, HOUR_MS, umamiRange } from './time-range.js'
import type { UmamiPoint, UmamiSeries, UmamiStats } from './types.js'
import { onWebsite } from './website-access.js'

/** Without start_gte, a report covers the 30 days before end_lt (or now), and says so in start_at. */
const DEFAULT_DAYS = 30

/**
 * A report's window in whole UTC hours. A ClickHouse server (Umami Cloud, or a self-hosted one with
 * CLICKHOUSE_URL) answers `/stats`, `/pageviews` and `/metrics` from `website_event_stats_hourly`, whose
 * rows are stamped with the start of their hour and picked by `created_at between startAt and endAt`
 * (umami-software/umami@v3.1.0:db/clickhouse/schema.sql; src/queries/sql/getWebsiteStats.ts,
 * pageviews/getPageviewStats.ts, sessions/getSessionStats.ts, pageviews/getPageviewMetrics.ts,
 * sessions/getSessionMetrics.ts): a window from 10:30 counts nothing before 11:00, one ending at 12:30
 * everything to 13:00. Which database a server runs cannot be asked, so a start must be on a UTC hour, and
 * an end too unless it is now or later (the current hour's row holds nothing after now, so an end there is
 * counted exactly). Without start_gte a report starts on the hour DEFAULT_DAYS before its end; without
 * end_lt it ends now.
 */
function reportRange(q: ListQuery, now = Date.now()) {
  const start = q.filters.start_gte
  if (start instanceof Date && start.getTime() % HOUR_MS !== 0) throw offTheHour('start_gte')
  const end = q.filters.end_lt
  if (end instanceof Date && end.getTime() % HOUR_MS !== 0 && end.getTime() < now) throw offTheHour('end_lt')
  const endAt = end instanceof Date ? end.getTime() : now
  if (start instanceof Date) return umamiRange(q, DEFAULT_DAYS, now)
  const startAt = Math.floor((endAt - DEFAULT_DAYS * DAY_MS) / HOUR_MS) * HOUR_MS
  return umamiRange({ ...q, filters: { ...q.filters, start_gte: new Date(startAt) } }, DEFAULT_DAYS, now)
}

function offTheHour(name: 'start_gte' | 'end_lt') {
  return badRequest(
    `${name}: Umami reports count whole UTC hours (a ClickHouse server, such as Umami Cloud, reads hourly rows); ` +
      `give a time on a UTC hour, such as 2024-05-01T10:00:00Z${name === 'end_lt' ? ', or leave end_lt out to end now' : ''}`,
  )
}

type Range = ReturnType<typeof umamiRange>

function checkTypes(types: ReadonlySet<string> | undefined, available: readonly string[], what: string) {
  const missing = [...(types ?? [])].filter((t) => !available.includes(t))
  if (missing.length > 0) {
    throw notImplemented(
      `Umami (umami) cannot report ${missing.join(', ')} ${what}; available there: ${available.join(', ')}`,
    )
  }
}

const wanted = (types: ReadonlySet<string> | undefined, type: string) => !types || types.has(type)

async function totals(
  ctx: HandlerContext,
  website: string,
  range: Range,
  q: ListQuery,
  types?: ReadonlySet<string>,
) {
  const stats = await ctx.client.json<UmamiStats>({
    path: `/websites/${encodeURIComponent(website)}/stats`,
    query: { startAt: range.startAt, endAt: range.endAt, ...ctx.rawParams },
  })
  const report: UnifiedRecord = {
    property_id: website,
    start_at: range.start,
    end_at: range.end,
    metrics: metricsFromUmamiStats(stats).filter((m) => wanted(types, m.type)),
    raw: stats,
  }
  return [report].slice(q.offset, q.offset + q.limit)
}

/**
 * One report per time bucket, with the bucket as its own start_at/end_at (cut to the range asked where a
 * bucket runs past it). A range longer than Umami keeps the unit for is read in pieces (series-pieces.ts).
 */
async function series(
  ctx: HandlerContext,
  website: string,
  range: Range,
  q: ListQuery,
  dimension: string,
  unit: UmamiUnit,
  types?: ReadonlySet<string>,
) {
  const buckets = new Map<string, { start: Date; views?: UmamiPoint; visitors?: UmamiPoint }>()
  const add = (p: UmamiPoint, key: 'views' | 'visitors') => {
    const start = parseBucket(p.x)
    if (!start) return
    const entry = buckets.get(p.x) ?? { start }
    entry[key] = p
    buckets.set(p.x, entry)
  }
  for (const piece of seriesPieces(range.startAt, range.endAt + 1, unit, hostingOf(ctx.credentials))) {
    const res = await ctx.client.json<UmamiSeries>({
      path: `/websites/${encodeURIComponent(website)}/pageviews`,
      query: { startAt: piece.startAt, endAt: piece.endAt, unit, timezone: 'UTC', ...ctx.rawParams },
    })
    for (const p of res.pageviews ?? []) add(p, 'views')
    for (const p of res.sessions ?? []) add(p, 'visitors')
  }
  const reports = [...buckets.values()]
    .sort((a, b) => a.start.getTime() - b.start.getTime())
    .map(({ start, views, visitors }) => {
      const label = bucketLabel(start, unit)
      const metrics = [
        { type: 'PAGE_VIEWS', point: views },
        // Umami's `sessions` series is distinct sessions, which Umami calls visitors.
        { type: 'USERS', point: visitors },
      ]
        .filter((m) => m.point && wanted(types, m.type))
        .map((m) => ({ type: m.type, dimension, dimension_value: label, value: m.point?.y }))
      const end = bucketEnd(start, unit)
      return {
        property_id: website,
        start_at: new Date(Math.max(start.getTime(), range.start.getTime())),
        end_at: new Date(Math.min(end.getTime(), range.end.getTime())),
        metrics,
        raw: { x: views?.x ?? visitors?.x, pageviews: views?.y, sessions: visitors?.y },
      }
    })
  return reports.slice(q.offset, q.offset + q.limit)
}

/** One report per breakdown row; Umami pages the rows itself with `limit`/`offset`. */
async function breakdown(
  ctx: HandlerContext,
  website: string,
  range: Range,
  q: ListQuery,
  dimension: string,
) {
  const b = BREAKDOWNS[dimension] as { type: string; metric: string }
  const rows = await ctx.client.json<UmamiPoint[]>({
    path: `/websites/${encodeURIComponent(website)}/metrics`,
    query: {
      startAt: range.startAt,
      endAt: range.endAt,
      type: b.type,
      limit: q.limit,
      offset: q.offset,
      ...ctx.rawParams,
    },
  })
  return rows.map((row) => ({
    property_id: website,
    start_at: range.start,
    end_at: range.end,
    metrics: [{ type: b.metric, dimension, dimension_value: row.x, value: row.y }],
    raw: row,
  }))
}

/**
 * What a report list asks Umami, from the query alone (`nowMs` ends a window without end_lt): the website,
 * metrics, dimension and hours; a 400 or 501 for what Umami cannot be asked.
 */
function reportAsked(q: ListQuery, nowMs: number) {
  const website = q.filters.property_id
  if (typeof website !== 'string') throw badRequest('Umami reports are per website: give property_id')
  const { types, dimension } = reportParamsOf(q)
  const range = reportRange(q, nowMs)
  if (range.startAt > range.endAt) throw badRequest('start_gte must be before end_lt')
  if (!dimension) checkTypes(types, STATS_METRICS, 'as totals')
  else if (TIME_UNITS[dimension]) checkTypes(types, SERIES_METRICS, `by ${dimension}`)
  else if (BREAKDOWNS[dimension]) checkTypes(types, [BREAKDOWNS[dimension].metric], `by ${dimension}`)
  else {
    throw notImplemented(
      `Umami (umami) cannot break reports down by ${dimension}; it can by ` +
        `${[...Object.keys(TIME_UNITS), ...Object.keys(BREAKDOWNS)].join(', ')}`,
    )
  }
  return { website, types, dimension, range }
}

export const reportHandlers: ObjectHandlers = {
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // The breakdown's `type` and its paging are Unigate's: a raw one would replace them without a word.
  rawOwned: {
    type: 'use dimension',
    limit: 'Unigate pages with limit and offset',
    offset: 'Unigate pages with limit and offset',
  },

  checkList: (q, nowMs) => void reportAsked(q, nowMs),

  async list(ctx, q) {
    const { website, types, dimension, range } = reportAsked(q, Date.now())
    if (!dimension) return onWebsite(ctx, website, () => totals(ctx, website, range, q, types))
    const unit = TIME_UNITS[dimension]
    if (unit) return onWebsite(ctx, website, () => series(ctx, website, range, q, dimension, unit, types))
    return onWebsite(ctx, website, () => breakdown(ctx, website, range, q, dimension))
  },
}

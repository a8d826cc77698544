import { badRequest, notImplemented } from '../../errors.js'
import { reportParamsOf } from '../report-params.js'
import type { ObjectHandlers } from '../types.js'
import { DIMENSION_OF, fromPlausibleQuery, METRIC_OF_TYPE } from './mappers.js'
import type { PlausibleQueryBody, PlausibleQueryResult } from './types.js'

const DAY_MS = 86_400_000
const DEFAULT_DAYS = 30

/** Session metrics Plausible refuses next to event dimensions, and what it needs for conversion rate. */
const VISIT_TOTALS = [
  'USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'PAGES_PER_SESSION',
  'BOUNCE_RATE',
  'AVERAGE_SESSION_DURATION',
]
const DEFAULT_TYPES: Readonly<Record<string, readonly string[]>> = {
  'event:page': ['USERS', 'SESSIONS', 'PAGE_VIEWS', 'BOUNCE_RATE', 'AVERAGE_SESSION_DURATION'],
  'event:goal': ['USERS', 'EVENTS', 'CONVERSION_RATE'],
}

/**
 * Plausible reads ISO date-times with their offset as given, seconds precision, both ends included;
 * unified `end_lt` excludes its instant, so the range ends one second earlier.
 */
function plausibleDateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`
}

/** `raw=filters%3D[...]` passes Plausible's own filter expressions through. */
function rawFilters(text: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text)
    if (Array.isArray(parsed)) return parsed
  } catch {}
  throw badRequest(
    'raw filters: give a JSON array of Plausible filters, such as [["is","visit:country",["US"]]]',
  )
}

export const reportHandlers: ObjectHandlers = {
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],

  async list(ctx, q) {
    const site = q.filters.property_id
    if (typeof site !== 'string')
      throw badRequest('Plausible reports are per site: give property_id (the domain)')
    const { types, dimension } = reportParamsOf(q)
    const plausibleDimension = dimension ? DIMENSION_OF[dimension] : undefined
    if (dimension && !plausibleDimension) {
      throw notImplemented(
        `Plausible (plausible) cannot break reports down by ${dimension}; it can by ${Object.keys(DIMENSION_OF).join(', ')}`,
      )
    }
    const chosen = types ? [...types] : [...(DEFAULT_TYPES[plausibleDimension ?? ''] ?? VISIT_TOTALS)]
    const missing = chosen.filter((t) => !METRIC_OF_TYPE[t])
    if (missing.length > 0) {
      throw notImplemented(
        `Plausible (plausible) has no metric for ${missing.join(', ')}; it reports ${Object.keys(METRIC_OF_TYPE).join(', ')}`,
      )
    }
    const end = q.filters.end_lt instanceof Date ? q.filters.end_lt.getTime() : Date.now()
    const start =
      q.filters.start_gte instanceof Date ? q.filters.start_gte.getTime() : end - DEFAULT_DAYS * DAY_MS
    if (start >= end) throw badRequest('start_gte must be before end_lt')
    const body: PlausibleQueryBody = {
      site_id: site,
      metrics: chosen.map((t) => METRIC_OF_TYPE[t]?.metric as string),
      date_range: [plausibleDateTime(start), plausibleDateTime(end - 1000)],
      ...(plausibleDimension ? { dimensions: [plausibleDimension] } : {}),
      ...(plausibleDimension?.startsWith('time') ? { order_by: [[plausibleDimension, 'asc']] } : {}),
      pagination: { limit: q.limit, offset: q.offset },
      ...(ctx.rawParams.filters ? { filters: rawFilters(ctx.rawParams.filters) } : {}),
    }
    const result = await ctx.client.json<PlausibleQueryResult>({
      method: 'POST',
      path: '/api/v2/query',
      body,
      // A query reads; sending it twice is harmless.
      idempotent: true,
    })
    return fromPlausibleQuery(result, site, new Date(start), new Date(end), dimension)
  },
}

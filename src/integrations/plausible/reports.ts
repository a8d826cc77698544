import { badRequest, notImplemented, ProviderError } from '../../errors.js'
import { rawJson } from '../raw-lists.js'
import { reportParamsOf } from '../report-params.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { DIMENSION_OF, fromPlausibleQuery, METRIC_OF_TYPE } from './mappers.js'
import type { PlausibleQueryBody, PlausibleQueryResult } from './types.js'

const DAY_MS = 86_400_000
const DEFAULT_DAYS = 30

/** What a report gives when no `type` is asked for: every visit total the dimension allows. */
const VISIT_TOTALS = [
  'USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'PAGES_PER_SESSION',
  'BOUNCE_RATE',
  'AVERAGE_SESSION_DURATION',
]
const EVENT_NAME_TOTALS = ['USERS', 'EVENTS']

/** Metrics Plausible computes from sessions only, and from events only (its TableDecider). */
const SESSION_ONLY = new Set(['PAGES_PER_SESSION', 'BOUNCE_RATE', 'AVERAGE_SESSION_DURATION'])
const EVENT_ONLY = new Set(['PAGE_VIEWS', 'EVENTS', 'REVENUE'])
const SESSION_DIMENSIONS = new Set(['visit:entry_page', 'visit:exit_page'])

/**
 * Why Plausible's Stats API v2 refuses a metric next to a dimension, or undefined when it takes it
 * (plausible/analytics lib/plausible/stats/filters/query_parser.ex validate_metric: views_per_visit
 * takes no dimension at all, conversion_rate needs an event:goal filter or dimension;
 * lib/plausible/stats/table_decider.ex: session-only metrics do not go with event dimensions except
 * event:page, event-only metrics do not go with entry/exit page dimensions).
 */
function refusal(
  type: string,
  dimension: string | undefined,
  filtered: (dimension: string) => boolean,
): string | undefined {
  if (type === 'PAGES_PER_SESSION' && dimension)
    return 'views_per_visit cannot be broken down by any dimension'
  if (type === 'PAGES_PER_SESSION' && filtered('event:page'))
    return 'views_per_visit cannot be filtered on event:page'
  if (type === 'CONVERSION_RATE' && dimension !== 'event:goal' && !filtered('event:goal'))
    return 'conversion_rate needs an event:goal filter (raw filters)'
  if (!dimension) return undefined
  if (SESSION_ONLY.has(type) && dimension.startsWith('event:') && dimension !== 'event:page')
    return `session metrics cannot be broken down by ${dimension}`
  if (EVENT_ONLY.has(type) && SESSION_DIMENSIONS.has(dimension))
    return `event metrics cannot be broken down by ${dimension}`
  return undefined
}

/** Whether a filter tree (`["and", [...]]`, `["not", f]`, leaves `[op, dim, clauses]`) uses the dimension. */
const filtersOn = (filters: readonly unknown[], dimension: string): boolean =>
  filters.some(
    (f) =>
      Array.isArray(f) &&
      (f[1] === dimension ||
        (Array.isArray(f[1]) && (filtersOn(f[1], dimension) || filtersOn([f[1]], dimension)))),
  )

/**
 * Plausible reads ISO date-times with their offset as given, seconds precision, both ends included;
 * unified `end_lt` excludes its instant, so the range ends one second earlier.
 */
function plausibleDateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`
}

/**
 * Time buckets in order; other breakdowns by the first metric, then the dimension value. Plausible
 * orders by the first metric alone (lib/plausible/stats/query_optimizer.ex add_missing_order_by) and
 * ClickHouse returns tied rows in any order, so pages read with an offset would repeat or skip rows.
 */
function orderOf(dimension: string, types: readonly string[]): [string, 'asc' | 'desc'][] {
  if (dimension.startsWith('time')) return [[dimension, 'asc']]
  return [
    [METRIC_OF_TYPE[types[0] as string]?.metric as string, 'desc'],
    [dimension, 'asc'],
  ]
}

/**
 * The raw parameters a query body takes besides Unigate's own: `POST /api/v2/query` allows no other key
 * ("Schema does not allow additional properties", plausible/analytics priv/json-schemas/query-api-schema.json),
 * and Unigate's own (site_id, metrics, date_range, dimensions, order_by, pagination) are `rawOwned`.
 */
const RAW_BODY_KEYS = ['filters', 'include']

/** `raw=include%3D{"imports":true}`: Plausible's `include` object, given as JSON. */
function rawInclude(text: string): PlausibleQueryBody['include'] {
  const parsed = rawJson('include', text)
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
    return parsed as PlausibleQueryBody['include']
  throw badRequest('raw include: give a JSON object of Plausible include options, such as {"imports":true}')
}

function rawFilters(text: string): unknown[] {
  const parsed = rawJson('filters', text)
  if (Array.isArray(parsed)) return parsed
  throw badRequest(
    'raw filters: give a JSON array of Plausible filters, such as [["is","visit:country",["US"]]]',
  )
}

/**
 * The site's IANA timezone, which Plausible buckets time dimensions in; any key may read it on Cloud
 * (Sites API, `sites:read:*` is implicit). Community Edition has no Sites API: undefined, and the
 * offset Plausible echoes with the result is used instead.
 */
async function siteTimeZone(ctx: HandlerContext, site: string): Promise<string | undefined> {
  try {
    const found = await ctx.client.json<{ timezone?: unknown }>({
      path: `/api/v1/sites/${encodeURIComponent(site)}`,
    })
    return typeof found.timezone === 'string' ? found.timezone : undefined
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return undefined
    throw err
  }
}

/** The site, metrics and dimension a report list asks, or what Plausible cannot be asked (400, 501). */
function reportAsked(q: ListQuery) {
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
  return { site, types, dimension, plausibleDimension }
}

/**
 * A query answer holds what the query asked for: Plausible echoes the query's metrics and builds each row
 * with one value per metric and per dimension (plausible/analytics lib/plausible/stats/query_result.ex
 * `from/2`), and pages its rows by the query's `pagination` (at most `limit` of them). The rows are mapped
 * metric by metric, so an answer of more is refused (502) before any row is: a connection's `api_url` may
 * name a server of its creator's, whose 200,000 metric names over 1,000 rows (831 KB, under every other
 * bound) held the event loop for 3 s, and with `raw` wrote the names out once per row (240 MB from a 419 KB
 * answer; a security review, reproduced).
 */
function checkQueryAnswer(result: PlausibleQueryResult, asked: PlausibleQueryBody): void {
  const refuse = (what: string) =>
    new ProviderError(502, `Plausible answered the report query with ${what}; not passed on`)
  const names = result?.query?.metrics
  if (!Array.isArray(result?.results) || !Array.isArray(names)) throw refuse('no results or no metrics')
  if (names.length !== asked.metrics.length) {
    throw refuse(`${names.length} metrics where ${asked.metrics.length} were asked`)
  }
  const limit = asked.pagination?.limit
  if (limit !== undefined && result.results.length > limit) {
    throw refuse(`${result.results.length} rows where at most ${limit} were asked`)
  }
  // Every row's raw names the query's dimensions and window: 100,000 echoed dimension names over 1,000 rows
  // (432 KB) made a 400 MB answer of `raw`.
  const dimensions = asked.dimensions?.length ?? 0
  const echoed = result.query.dimensions ?? []
  if (!Array.isArray(echoed) || echoed.length !== dimensions) {
    throw refuse(
      `${Array.isArray(echoed) ? echoed.length : 'no list of'} dimensions where ${dimensions} were asked`,
    )
  }
  const window = result.query.date_range
  if (
    window !== undefined &&
    !(
      Array.isArray(window) &&
      window.length === 2 &&
      window.every((d) => typeof d === 'string' && d.length <= 64)
    )
  ) {
    throw refuse('a date_range other than two instants')
  }
  for (const row of result.results) {
    if (!Array.isArray(row?.metrics) || row.metrics.length !== names.length) {
      throw refuse(`a row of other metrics than the ${names.length} asked`)
    }
    if (!Array.isArray(row.dimensions) || row.dimensions.length !== dimensions) {
      throw refuse(`a row of other dimensions than the ${dimensions} asked`)
    }
  }
}

export const reportHandlers: ObjectHandlers = {
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // What Unigate sets in the query body and reads the answer by: a raw one is refused, never dropped.
  rawOwned: {
    site_id: 'use property_id',
    metrics: 'use type',
    date_range: 'use start_gte and end_lt',
    dimensions: 'use dimension',
    order_by: 'Unigate orders the rows it pages with limit and offset',
    pagination: 'Unigate pages with limit and offset',
  },

  // Which metrics Plausible takes for a dimension may depend on raw filters, and a list's raw parameters are
  // checked before them: only what comes first is checked here.
  checkList: (q) => void reportAsked(q),

  async list(ctx, q) {
    const { site, types, dimension, plausibleDimension } = reportAsked(q)
    const other = Object.keys(ctx.rawParams).find((k) => !RAW_BODY_KEYS.includes(k))
    if (other !== undefined) {
      throw badRequest(
        `raw: Plausible's query API takes no '${other}'; a report's raw parameters join its JSON body, which takes ${RAW_BODY_KEYS.join(' and ')}`,
      )
    }
    const filters = ctx.rawParams.filters ? rawFilters(ctx.rawParams.filters) : undefined
    const include = ctx.rawParams.include !== undefined ? rawInclude(ctx.rawParams.include) : undefined
    const filtered = (d: string) => (filters ? filtersOn(filters, d) : false)
    const defaults = plausibleDimension === 'event:name' ? EVENT_NAME_TOTALS : VISIT_TOTALS
    // Without `type`, only what Plausible takes for this dimension; an explicit one it refuses is a 501.
    const chosen = types ? [...types] : defaults.filter((t) => !refusal(t, plausibleDimension, filtered))
    const missing = chosen.filter((t) => !METRIC_OF_TYPE[t])
    if (missing.length > 0) {
      throw notImplemented(
        `Plausible (plausible) has no metric for ${missing.join(', ')}; it reports ${Object.keys(METRIC_OF_TYPE).join(', ')}`,
      )
    }
    for (const t of chosen) {
      const why = refusal(t, plausibleDimension, filtered)
      if (why)
        throw notImplemented(
          `Plausible (plausible) cannot report ${t}${dimension ? ` by ${dimension}` : ''}: ${why}`,
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
      ...(plausibleDimension ? { order_by: orderOf(plausibleDimension, chosen) } : {}),
      pagination: { limit: q.limit, offset: q.offset },
      ...(filters ? { filters } : {}),
      ...(include ? { include } : {}),
    }
    const result = await ctx.client.json<PlausibleQueryResult>({
      method: 'POST',
      path: '/api/v2/query',
      body,
      // A query reads; sending it twice is harmless.
      idempotent: true,
    })
    checkQueryAnswer(result, body)
    const timeZone = plausibleDimension?.startsWith('time') ? await siteTimeZone(ctx, site) : undefined
    return fromPlausibleQuery(result, site, new Date(start), new Date(end), dimension, timeZone)
  },
}

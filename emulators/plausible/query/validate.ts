import {
  DATE_RANGE_WORDS,
  EVENT_DIMENSIONS,
  EVENT_METRICS,
  METRICS,
  SESSION_DIMENSIONS,
  SESSION_METRICS,
  TIME_DIMENSIONS,
  VISIT_DIMENSIONS,
} from '../constants.js'
import { badRequest } from '../errors.js'

export type Filter = [string, string, string[]]

export interface ValidQuery {
  readonly site_id: string
  readonly metrics: string[]
  readonly date_range: string | [string, string]
  readonly dimensions: string[]
  readonly filters: Filter[]
  readonly order_by?: [string, 'asc' | 'desc'][]
  readonly include: { total_rows?: boolean; imports?: boolean; time_labels?: boolean }
  readonly pagination: { limit: number; offset: number }
}

/** Public filter operators (plausible/analytics@676dce0e:priv/json-schemas/query-api-schema.json). */
const FILTER_OPS = ['is', 'is_not', 'contains', 'contains_not', 'matches', 'matches_not'] as const
const KEYS = [
  'site_id',
  'metrics',
  'date_range',
  'dimensions',
  'filters',
  'order_by',
  'include',
  'pagination',
]
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

function isDimension(d: unknown): d is string {
  return (
    typeof d === 'string' &&
    ((VISIT_DIMENSIONS as readonly string[]).includes(d) ||
      (EVENT_DIMENSIONS as readonly string[]).includes(d) ||
      (TIME_DIMENSIONS as readonly string[]).includes(d) ||
      /^event:props:[\w-]+$/.test(d))
  )
}

function dateRange(value: unknown): string | [string, string] {
  if (typeof value === 'string' && (DATE_RANGE_WORDS as readonly string[]).includes(value)) return value
  if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) {
    const [a, b] = value as [string, string]
    const bothDates = DATE.test(a) && DATE.test(b)
    const bothTimes = DATE_TIME.test(a) && DATE_TIME.test(b)
    if ((bothDates || bothTimes) && !Number.isNaN(Date.parse(a)) && !Number.isNaN(Date.parse(b))) {
      if (Date.parse(a) > Date.parse(b))
        throw badRequest('Invalid date_range: the first date must not be after the second')
      return [a, b]
    }
  }
  throw badRequest(`#/date_range: Invalid date range ${JSON.stringify(value)}`)
}

function filters(value: unknown): Filter[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw badRequest('#/filters: Type mismatch. Expected Array')
  return value.map((f, i) => {
    if (!Array.isArray(f) || f.length < 3 || f.length > 4)
      throw badRequest(`#/filters/${i}: Invalid filter ${JSON.stringify(f)}`)
    const [op, dim, clauses] = f as [unknown, unknown, unknown]
    if (!(FILTER_OPS as readonly string[]).includes(op as string))
      throw badRequest(`#/filters/${i}/0: Invalid filter operator ${JSON.stringify(op)}`)
    if (!isDimension(dim) || (TIME_DIMENSIONS as readonly string[]).includes(dim)) {
      throw badRequest(`#/filters/${i}/1: Invalid filter dimension ${JSON.stringify(dim)}`)
    }
    if (!Array.isArray(clauses) || !clauses.every((c) => typeof c === 'string')) {
      throw badRequest(`#/filters/${i}/2: Type mismatch. Expected Array of strings`)
    }
    return [op as string, dim, clauses as string[]]
  })
}

const inList = (list: readonly string[], v: string) => list.includes(v)
const ticked = (list: readonly string[]) => list.map((x) => `\`${x}\``).join(', ')

/**
 * Per-metric rules, then the metric/dimension table conflict, in Plausible's order and words
 * (plausible/analytics@d5a94c98:lib/plausible/stats/filters/query_parser.ex validate_metrics,
 * validate_metric; table_decider.ex for the conflict).
 */
function checkMetrics(metrics: readonly string[], dimensions: readonly string[], f: readonly Filter[]): void {
  const filtersOn = (dim: string) => f.some((x) => x[1] === dim)
  for (const metric of metrics) {
    if (metric === 'conversion_rate' || metric === 'group_conversion_rate') {
      if (!dimensions.includes('event:goal') && !filtersOn('event:goal'))
        throw badRequest(`Metric \`${metric}\` can only be queried with event:goal filters or dimensions.`)
    }
    if (metric === 'scroll_depth' && !dimensions.includes('event:page') && !filtersOn('event:page')) {
      throw badRequest(`Metric \`${metric}\` can only be queried with event:page filters or dimensions.`)
    }
    // views_per_visit: never with an event:page filter, never with any dimension at all.
    if (metric === 'views_per_visit') {
      if (filtersOn('event:page'))
        throw badRequest('Metric `views_per_visit` cannot be queried with a filter on `event:page`.')
      if (dimensions.length > 0)
        throw badRequest('Metric `views_per_visit` cannot be queried with `dimensions`.')
    }
  }
  const sessionMetrics = metrics.filter((m) => inList(SESSION_METRICS, m))
  const eventMetrics = metrics.filter((m) => inList(EVENT_METRICS, m))
  const eventDims = dimensions.filter((d) => d.startsWith('event:'))
  const sessionDims = dimensions.filter((d) => inList(SESSION_DIMENSIONS, d))
  // event:page is the exception the query optimizer splits for, alone or with event:hostname
  // (plausible/docs@208d58ca:docs/stats-api.md "Mixing session metrics … is not allowed, with the
  // exception of event:page and event:hostname (when used together with event:page)").
  if (
    eventDims.includes('event:page') &&
    eventDims.every((d) => d === 'event:page' || d === 'event:hostname')
  )
    return
  if (sessionMetrics.length > 0 && eventDims.length > 0) {
    throw badRequest(
      `Session metric(s) ${ticked(sessionMetrics)} cannot be queried along with event dimension(s) ${ticked(eventDims)}`,
    )
  }
  if (eventMetrics.length > 0 && sessionDims.length > 0) {
    throw badRequest(
      `Event metric(s) ${ticked(eventMetrics)} cannot be queried along with session dimension(s) ${ticked(sessionDims)}`,
    )
  }
}

/** Checks a `/api/v2/query` body the way Plausible's JSON schema and query validations do. */
export function validateQuery(body: unknown): ValidQuery {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('#: Type mismatch. Expected Object')
  const b = body as Record<string, unknown>
  const extra = Object.keys(b).filter((k) => !KEYS.includes(k))
  if (extra.length > 0)
    throw badRequest(`#: Schema does not allow additional properties: ${extra.join(', ')}`)
  if (typeof b.site_id !== 'string') throw badRequest('#/site_id: Required property site_id was not present.')
  if (!Array.isArray(b.metrics) || b.metrics.length === 0)
    throw badRequest('#/metrics: Expected a minimum of 1 items')
  b.metrics.forEach((m, i) => {
    if (!(METRICS as readonly string[]).includes(m as string))
      throw badRequest(`#/metrics/${i}: Invalid metric ${JSON.stringify(m)}`)
  })
  const metrics = b.metrics as string[]
  // "uniqueItems": true (plausible/analytics@676dce0e:priv/json-schemas/query-api-schema.json)
  if (new Set(metrics).size !== metrics.length)
    throw badRequest('#/metrics: Expected items to be unique but they were not.')
  if (b.date_range === undefined)
    throw badRequest('#/date_range: Required property date_range was not present.')
  const dims = (b.dimensions ?? []) as unknown
  if (!Array.isArray(dims)) throw badRequest('#/dimensions: Type mismatch. Expected Array')
  dims.forEach((d, i) => {
    if (!isDimension(d)) throw badRequest(`#/dimensions/${i}: Invalid dimension ${JSON.stringify(d)}`)
  })
  const dimensions = dims as string[]
  if (dimensions.filter((d) => d.startsWith('time')).length > 1)
    throw badRequest('Invalid dimensions: only one time dimension is allowed')
  const f = filters(b.filters)
  checkMetrics(metrics, dimensions, f)
  let order: [string, 'asc' | 'desc'][] | undefined
  if (b.order_by !== undefined) {
    if (!Array.isArray(b.order_by)) throw badRequest('#/order_by: Type mismatch. Expected Array')
    order = b.order_by.map((o, i) => {
      if (!Array.isArray(o) || o.length !== 2 || (o[1] !== 'asc' && o[1] !== 'desc')) {
        throw badRequest(`#/order_by/${i}: Invalid order_by entry ${JSON.stringify(o)}`)
      }
      if (!metrics.includes(o[0]) && !dimensions.includes(o[0])) {
        throw badRequest(`Invalid order_by entry '${o[0]}': it is not in metrics or dimensions`)
      }
      return [o[0] as string, o[1] as 'asc' | 'desc']
    })
  }
  // pagination.limit 1..10000 (default 10000), offset >= 0 (same schema; query_parser.ex @default_pagination).
  const p = (b.pagination ?? {}) as Record<string, unknown>
  const limit = p.limit ?? 10_000
  const offset = p.offset ?? 0
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 10_000) {
    throw badRequest('#/pagination/limit: Expected an integer from 1 to 10000')
  }
  if (!Number.isInteger(offset) || (offset as number) < 0)
    throw badRequest('#/pagination/offset: Expected a non-negative integer')
  const include = (b.include ?? {}) as Record<string, unknown>
  for (const [k, v] of Object.entries(include)) {
    if (!['total_rows', 'imports', 'time_labels', 'comparisons'].includes(k))
      throw badRequest(`#/include: Schema does not allow additional properties: ${k}`)
    if (k !== 'comparisons' && typeof v !== 'boolean')
      throw badRequest(`#/include/${k}: Type mismatch. Expected Boolean`)
  }
  return {
    site_id: b.site_id,
    metrics,
    date_range: dateRange(b.date_range),
    dimensions,
    filters: f,
    ...(order ? { order_by: order } : {}),
    include: include as ValidQuery['include'],
    pagination: { limit: limit as number, offset: offset as number },
  }
}

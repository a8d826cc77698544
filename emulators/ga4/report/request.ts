import { invalidArgument } from '../../google/errors.js'
import { DIMENSION_NAMES } from '../data/facts.js'
import { METRICS } from './metrics.js'

/** A runReport body after the checks the Data API makes, in the order it makes them. */

export interface DateRange {
  readonly startDate: string
  readonly endDate: string
  readonly name?: string
}

export interface OrderBy {
  readonly desc: boolean
  readonly dimension?: { dimensionName: string; orderType?: string }
  readonly metric?: { metricName: string }
}

export type FilterExpression = Readonly<Record<string, unknown>>

export interface RunReportRequest {
  readonly dateRanges: readonly DateRange[]
  readonly dimensions: readonly string[]
  readonly metrics: readonly string[]
  readonly limit: number
  readonly offset: number
  readonly orderBys: readonly OrderBy[]
  readonly dimensionFilter?: FilterExpression
  readonly metricFilter?: FilterExpression
  readonly metricAggregations: readonly string[]
  readonly returnPropertyQuota: boolean
  /** Whether rows whose metrics are all 0 are answered (RunReportRequest.keep_empty_rows). */
  readonly keepEmptyRows: boolean
  readonly currencyCode?: string
}

const KNOWN_FIELDS = new Set([
  'property',
  'dimensions',
  'metrics',
  'dateRanges',
  'dimensionFilter',
  'metricFilter',
  'offset',
  'limit',
  'metricAggregations',
  'orderBys',
  'currencyCode',
  'cohortSpec',
  'keepEmptyRows',
  'returnPropertyQuota',
  'comparisons',
])
/**
 * RunReportRequest's fields (analytics_data_api.proto); an unknown one is refused by Google's JSON
 * transcoding. Parts of the Data API this emulator does not model: it says so instead of ignoring them.
 */
const UNMODELLED = ['cohortSpec', 'comparisons']

/**
 * A message field takes a JSON object ("message: object", https://protobuf.dev/programming-guides/json/);
 * Google's JSON transcoding refuses anything else as an invalid value of the message type, naming the field
 * in snake_case, rather than ignoring it.
 */
function message(field: string, type: string, value: unknown): FilterExpression | undefined {
  if (value === undefined) return undefined
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(
      `Invalid value at '${field}' (type.googleapis.com/google.analytics.data.v1beta.${type}), ${JSON.stringify(value)}`,
    )
  }
  return value as FilterExpression
}

/**
 * "If unspecified, 10,000 rows are returned. The API returns a maximum of 250,000 rows per request, no
 * matter how many you ask for. `limit` must be positive." (googleapis/googleapis@3597f7db:
 * google/analytics/data/v1beta/analytics_data_api.proto, RunReportRequest.limit); "Requests are allowed up
 * to 9 dimensions" / "up to 10 metrics" / "up to 4 date ranges" (googleapis/googleapis@5bb0518f:
 * google/analytics/data/v1beta/data.proto, Dimension, Metric, DateRange).
 */
export const DEFAULT_LIMIT = 10_000
export const MAX_LIMIT = 250_000
const MAX_DIMENSIONS = 9
const MAX_METRICS = 10
const SCHEMA_DOC = 'https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema'

/** int64 fields arrive as JSON strings (the documented form) or numbers. */
function int64(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : ''
  if (!/^-?\d+$/.test(text))
    throw invalidArgument(`Invalid value at '${field}' (TYPE_INT64), "${String(value)}"`)
  return Number(text)
}

function names(field: string, value: unknown, key: 'name'): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw invalidArgument(`Invalid value at '${field}', expected a list`)
  return value.map((item, i) => {
    const n = item && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined
    if (typeof n !== 'string' || n === '') throw invalidArgument(`${field}[${i}].name must be set.`)
    return n
  })
}

export function parseRunReport(body: unknown): RunReportRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidArgument('Invalid JSON payload received. Expected an object.')
  }
  const b = body as Record<string, unknown>
  for (const key of Object.keys(b)) {
    if (!KNOWN_FIELDS.has(key))
      throw invalidArgument(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`)
  }
  const dimensionFilter = message('dimension_filter', 'FilterExpression', b.dimensionFilter)
  const metricFilter = message('metric_filter', 'FilterExpression', b.metricFilter)
  for (const key of UNMODELLED) {
    if (b[key] !== undefined) throw invalidArgument(`The emulator does not model '${key}'.`)
  }
  const dimensions = names('dimensions', b.dimensions, 'name')
  const metrics = names('metrics', b.metrics, 'name')
  if (dimensions.length === 0 && metrics.length === 0) {
    throw invalidArgument('Must request at least one dimension or metric.')
  }
  if (dimensions.length > MAX_DIMENSIONS) {
    throw invalidArgument(
      `Requested ${dimensions.length} dimensions; only ${MAX_DIMENSIONS} dimensions are allowed.`,
    )
  }
  if (metrics.length > MAX_METRICS) {
    throw invalidArgument(`Requested ${metrics.length} metrics; only ${MAX_METRICS} metrics are allowed.`)
  }
  for (const d of dimensions) {
    if (!(DIMENSION_NAMES as readonly string[]).includes(d)) {
      throw invalidArgument(
        `Field ${d} is not a valid dimension. For a list of valid dimensions and metrics, see ${SCHEMA_DOC}`,
      )
    }
  }
  for (const m of metrics) {
    if (!METRICS[m]) {
      throw invalidArgument(
        `Field ${m} is not a valid metric. For a list of valid dimensions and metrics, see ${SCHEMA_DOC}`,
      )
    }
  }
  const dupe = [...dimensions, ...metrics].find((n, i, all) => all.indexOf(n) !== i)
  if (dupe) throw invalidArgument(`Field ${dupe} was requested more than once.`)
  const ranges = b.dateRanges
  if (!Array.isArray(ranges) || ranges.length === 0)
    throw invalidArgument('Must specify at least one date range.')
  if (ranges.length > 4)
    throw invalidArgument('Requested 5 or more date ranges; only 4 date ranges are allowed.')
  const dateRanges = ranges.map((r, i) => {
    const range = (r ?? {}) as Record<string, unknown>
    if (typeof range.startDate !== 'string' || typeof range.endDate !== 'string') {
      throw invalidArgument(`dateRanges[${i}]: startDate and endDate must both be set.`)
    }
    return {
      startDate: range.startDate,
      endDate: range.endDate,
      ...(typeof range.name === 'string' ? { name: range.name } : {}),
    }
  })
  const limit = int64('limit', b.limit) ?? 0
  const offset = int64('offset', b.offset) ?? 0
  if (limit < 0) throw invalidArgument('limit must be positive.')
  if (offset < 0) throw invalidArgument('offset must be positive.')
  const orderBys = parseOrderBys(b.orderBys, dimensions, metrics)
  // MetricAggregation: TOTAL, MINIMUM, MAXIMUM, COUNT (data.proto).
  const aggregations = Array.isArray(b.metricAggregations) ? b.metricAggregations.map(String) : []
  for (const a of aggregations) {
    if (!['TOTAL', 'MAXIMUM', 'MINIMUM', 'COUNT'].includes(a)) {
      throw invalidArgument(`Invalid value at 'metric_aggregations', "${a}"`)
    }
  }
  return {
    dateRanges,
    dimensions,
    metrics,
    // Unset (0) means the default (10,000); larger limits are capped at 250,000 rows, as GA4 does
    // (RunReportRequest.limit, https://developers.google.com/analytics/devguides/reporting/data/v1/rest/v1beta/properties/runReport).
    limit: Math.min(limit === 0 ? DEFAULT_LIMIT : limit, MAX_LIMIT),
    offset,
    orderBys,
    ...(dimensionFilter ? { dimensionFilter } : {}),
    ...(metricFilter ? { metricFilter } : {}),
    metricAggregations: aggregations,
    returnPropertyQuota: b.returnPropertyQuota === true,
    keepEmptyRows: b.keepEmptyRows === true,
    ...(typeof b.currencyCode === 'string' ? { currencyCode: b.currencyCode } : {}),
  }
}

function parseOrderBys(value: unknown, dimensions: readonly string[], metrics: readonly string[]): OrderBy[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw invalidArgument("Invalid value at 'order_bys', expected a list")
  return value.map((o: Record<string, unknown>) => {
    const dimension = o.dimension as { dimensionName?: unknown; orderType?: unknown } | undefined
    const metric = o.metric as { metricName?: unknown } | undefined
    if (dimension) {
      const name = String(dimension.dimensionName ?? '')
      if (!dimensions.includes(name)) {
        throw invalidArgument(
          `Dimension '${name}' in order by is not requested in the dimensions of this request.`,
        )
      }
      // OrderBy.DimensionOrderBy.OrderType: ALPHANUMERIC, CASE_INSENSITIVE_ALPHANUMERIC, NUMERIC (data.proto).
      const orderType = dimension.orderType === undefined ? undefined : String(dimension.orderType)
      if (orderType && !['ALPHANUMERIC', 'CASE_INSENSITIVE_ALPHANUMERIC', 'NUMERIC'].includes(orderType)) {
        throw invalidArgument(`Invalid value at 'order_bys.dimension.order_type', "${orderType}"`)
      }
      return {
        desc: o.desc === true,
        dimension: { dimensionName: name, ...(orderType ? { orderType } : {}) },
      }
    }
    if (metric) {
      const name = String(metric.metricName ?? '')
      if (!metrics.includes(name)) {
        throw invalidArgument(`Metric '${name}' in order by is not requested in the metrics of this request.`)
      }
      return { desc: o.desc === true, metric: { metricName: name } }
    }
    throw invalidArgument('An order by must set one of dimension, metric or pivot.')
  })
}

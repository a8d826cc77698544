import { invalidArgument } from '../../google/errors.js'
import type { FilterExpression } from './request.js'

type Dims = Readonly<Record<string, string>>

/**
 * Data API FilterExpression over dimension values: and/or/not groups, string (EXACT, BEGINS_WITH,
 * ENDS_WITH, CONTAINS, FULL_REGEXP, PARTIAL_REGEXP; case-insensitive unless caseSensitive), in-list and
 * empty filters (googleapis/googleapis@5bb0518f:google/analytics/data/v1beta/data.proto FilterExpression,
 * Filter, StringFilter.MatchType, InListFilter, EmptyFilter).
 */
export function matchesFilter(expr: FilterExpression, dims: Dims): boolean {
  return matchesExpression(expr, (filter) => matchesDimensionFilter(filter, dims))
}

type Filter = Record<string, unknown>

/**
 * A FilterExpression's and/or/not groups, the same for dimension and metric filters (data.proto
 * FilterExpression: exactly one of and_group, or_group, not_expression, filter), each leaf `filter` judged
 * by `leaf`.
 */
function matchesExpression(expr: FilterExpression, leaf: (filter: Filter) => boolean): boolean {
  const group = (key: string) => (expr[key] as { expressions?: FilterExpression[] } | undefined)?.expressions
  const and = group('andGroup')
  if (and) return and.every((e) => matchesExpression(e, leaf))
  const or = group('orGroup')
  if (or) return or.some((e) => matchesExpression(e, leaf))
  if (expr.notExpression) return !matchesExpression(expr.notExpression as FilterExpression, leaf)
  const filter = expr.filter as Filter | undefined
  if (!filter)
    throw invalidArgument(
      'A filter expression must set one of and_group, or_group, not_expression or filter.',
    )
  return leaf(filter)
}

function matchesDimensionFilter(filter: Filter, dims: Dims): boolean {
  const field = String(filter.fieldName ?? '')
  if (!(field in dims)) throw invalidArgument(`Field ${field} is not a valid dimension for dimension_filter.`)
  const actual = dims[field] ?? ''
  const string = filter.stringFilter as
    | { matchType?: string; value?: string; caseSensitive?: boolean }
    | undefined
  if (string) {
    const cs = string.caseSensitive === true
    const a = cs ? actual : actual.toLowerCase()
    const v = cs ? String(string.value ?? '') : String(string.value ?? '').toLowerCase()
    switch (string.matchType ?? 'EXACT') {
      case 'EXACT':
        return a === v
      case 'BEGINS_WITH':
        return a.startsWith(v)
      case 'ENDS_WITH':
        return a.endsWith(v)
      case 'CONTAINS':
        return a.includes(v)
      case 'FULL_REGEXP':
        return new RegExp(`^(?:${String(string.value)})$`, cs ? '' : 'i').test(actual)
      case 'PARTIAL_REGEXP':
        return new RegExp(String(string.value), cs ? '' : 'i').test(actual)
      default:
        throw invalidArgument(
          `Invalid value at 'dimension_filter.filter.string_filter.match_type', "${string.matchType}"`,
        )
    }
  }
  const inList = filter.inListFilter as { values?: string[]; caseSensitive?: boolean } | undefined
  if (inList) {
    const cs = inList.caseSensitive === true
    return (inList.values ?? []).some((v) => (cs ? v === actual : v.toLowerCase() === actual.toLowerCase()))
  }
  if (filter.emptyFilter !== undefined) return actual === '' || actual === '(not set)'
  throw invalidArgument('The emulator models string, in-list and empty dimension filters only.')
}

/** NumericValue: `int64Value` (an int64, so a JSON string or number) or `doubleValue` (data.proto). */
function numericValue(field: string, value: unknown): number {
  const v = (value ?? {}) as { int64Value?: unknown; doubleValue?: unknown }
  const n = v.int64Value !== undefined ? Number(v.int64Value) : Number(v.doubleValue)
  if (!Number.isFinite(n)) throw invalidArgument(`${field}: a numeric value needs int64Value or doubleValue.`)
  return n
}

/**
 * Data API FilterExpression over a row's metric values, applied after the rows are grouped ("Applied after
 * aggregating the report's rows, similar to SQL having-clause"): and/or/not groups, numeric filters (EQUAL,
 * LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL) and inclusive between filters
 * (googleapis/googleapis@3597f7db:google/analytics/data/v1beta/analytics_data_api.proto
 * RunReportRequest.metric_filter; data.proto FilterExpression, Filter.NumericFilter, Filter.BetweenFilter,
 * NumericValue). A metric may be filtered on without being requested ("dimensions & metrics can be used for
 * the first time in this field", data.proto Filter.field_name); `metricValue` answers undefined for a name that
 * is no metric.
 */
export function matchesMetricFilter(
  expr: FilterExpression,
  metricValue: (metric: string) => number | undefined,
): boolean {
  return matchesExpression(expr, (filter) => matchesOneMetricFilter(filter, metricValue))
}

function matchesOneMetricFilter(
  filter: Filter,
  metricValue: (metric: string) => number | undefined,
): boolean {
  const field = String(filter.fieldName ?? '')
  const actual = metricValue(field)
  if (actual === undefined) throw invalidArgument(`Field ${field} is not a valid metric for metric_filter.`)
  const numeric = filter.numericFilter as { operation?: string; value?: unknown } | undefined
  if (numeric) {
    const v = numericValue('metric_filter.filter.numeric_filter.value', numeric.value)
    switch (numeric.operation) {
      case 'EQUAL':
        return actual === v
      case 'LESS_THAN':
        return actual < v
      case 'LESS_THAN_OR_EQUAL':
        return actual <= v
      case 'GREATER_THAN':
        return actual > v
      case 'GREATER_THAN_OR_EQUAL':
        return actual >= v
      default:
        throw invalidArgument(
          `Invalid value at 'metric_filter.filter.numeric_filter.operation', "${String(numeric.operation)}"`,
        )
    }
  }
  const between = filter.betweenFilter as { fromValue?: unknown; toValue?: unknown } | undefined
  if (between) {
    const from = numericValue('metric_filter.filter.between_filter.from_value', between.fromValue)
    const to = numericValue('metric_filter.filter.between_filter.to_value', between.toValue)
    return actual >= from && actual <= to
  }
  throw invalidArgument('A metric filter must be a numeric or between filter.')
}

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
  const group = (key: string) => (expr[key] as { expressions?: FilterExpression[] } | undefined)?.expressions
  const and = group('andGroup')
  if (and) return and.every((e) => matchesFilter(e, dims))
  const or = group('orGroup')
  if (or) return or.some((e) => matchesFilter(e, dims))
  if (expr.notExpression) return !matchesFilter(expr.notExpression as FilterExpression, dims)
  const filter = expr.filter as Record<string, unknown> | undefined
  if (!filter)
    throw invalidArgument(
      'A filter expression must set one of and_group, or_group, not_expression or filter.',
    )
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

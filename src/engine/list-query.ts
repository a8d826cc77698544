import { badRequest, notImplemented, numericRange } from '../errors.js'
import type { IntegrationDefinition, ListQuery, ObjectHandlers } from '../integrations/types.js'
import { DEFAULT_LIMIT, LimitParam, type ObjectModel, OffsetParam } from '../models/index.js'

const LIMIT = LimitParam()
const OFFSET = OffsetParam()

import { parseQueryDate } from './dates.js'

export type RawListQuery = Readonly<Record<string, unknown>>

function str(value: unknown): string | undefined {
  if (value === undefined) return undefined
  return Array.isArray(value) ? String(value[value.length - 1]) : String(value)
}

function date(name: string, value: string): Date {
  const parsed = parseQueryDate(value)
  if (!parsed) {
    throw badRequest(`${name}: '${value}' is not an ISO-8601 date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ`)
  }
  return parsed
}

/** The decimal integer `value`, within the bounds of the parameter's schema (the API's own). */
function integer(name: string, value: string, schema: { minimum?: number; maximum?: number }): number {
  const n = Number(value)
  const { minimum = Number.NEGATIVE_INFINITY, maximum = Number.POSITIVE_INFINITY } = schema
  if (!/^-?\d+$/.test(value) || n < minimum || n > maximum) {
    throw badRequest(`${name} must be ${numericRange({ ...schema, type: 'integer' })}`)
  }
  return n
}

/**
 * A list query string read against the model alone: every value is checked for what it is (a whole number
 * in range, an ISO-8601 date, a field of the object, a window that holds time) before anything asks what the
 * connection's integration can do, so a malformed list is the same 400 on every connection, and the 501 of
 * `supportedListQuery` is left for a well-formed list that one integration cannot apply.
 */
export interface ReadListQuery {
  readonly query: ListQuery
  /** The list parameters given with a value (`updated_gte`, `sort`, `order`, `query`); an empty one is not given. */
  readonly paramsGiven: readonly ListParam[]
}

type ListParam = 'updated_gte' | 'sort' | 'order' | 'query'
const LIST_PARAMS: readonly ListParam[] = ['updated_gte', 'sort', 'order', 'query']

export function readListQuery(raw: RawListQuery, model: ObjectModel): ReadListQuery {
  const given = (param: string) => str(raw[param])
  const limitText = given('limit')
  const offsetText = given('offset')
  const order = given('order')?.toLowerCase()
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    throw badRequest(`order: '${given('order')}' is not allowed; use asc or desc`)
  }
  const sort = given('sort')
  if (sort !== undefined && !model.fieldNames.includes(sort)) {
    throw badRequest(`sort: '${sort}' is not a field of ${model.objectType}`)
  }
  const filters: Record<string, string | Date> = {}
  for (const [name, kind] of Object.entries(model.filters)) {
    const value = given(name)
    if (value === undefined || value === '') continue
    filters[name] = kind === 'date' ? date(name, value) : value
  }
  // One answer on every integration for a window that holds no time (some read it as empty, others refused
  // it): a 400, as reports always answered.
  const { start_gte: start, end_lt: end } = filters
  if (start instanceof Date && end instanceof Date && end.getTime() <= start.getTime()) {
    throw badRequest(
      `end_lt (${end.toISOString()}) must be after start_gte (${start.toISOString()}): the window holds no time`,
    )
  }
  // Empty (`updated_gte=`, `query=`) is not given, as an empty filter is: the same answer on every
  // connection, where it was ignored by those that apply the parameter and a 501 from the others.
  const updated = given('updated_gte') || undefined
  const query = given('query') || undefined
  const read: ListQuery = {
    limit: limitText === undefined ? DEFAULT_LIMIT : integer('limit', limitText, LIMIT),
    offset: offsetText === undefined ? 0 : integer('offset', offsetText, OFFSET),
    ...(updated ? { updated_gte: date('updated_gte', updated) } : {}),
    ...(sort ? { sort } : {}),
    // `sort` alone is ascending on every integration, whatever the provider's default direction for the field.
    ...(order ? { order: order as 'asc' | 'desc' } : sort ? { order: 'asc' as const } : {}),
    ...(query ? { query } : {}),
    filters,
  }
  // An empty `sort` or `order` was refused above; an empty `updated_gte` or `query` is not given.
  return { query: read, paramsGiven: LIST_PARAMS.filter((param) => (given(param) ?? '') !== '') }
}

/**
 * Refuses, with 501, any parameter of a read list query the integration cannot honour at the provider:
 * returning unfiltered data for a filter we ignored would be silently wrong.
 */
export function supportedListQuery(
  read: ReadListQuery,
  model: ObjectModel,
  handlers: ObjectHandlers,
  integration: IntegrationDefinition,
): ListQuery {
  const cannot = (param: string) =>
    notImplemented(
      `${integration.name} (${integration.type}) cannot apply '${param}' when listing ${model.objectType}; ` +
        `supported here: ${[...handlers.listParams, ...handlers.filters].join(', ') || 'none'}`,
    )
  const { query, paramsGiven } = read
  for (const param of paramsGiven) if (!handlers.listParams.includes(param)) throw cannot(param)
  if (query.sort !== undefined && !(handlers.sortFields ?? []).includes(query.sort)) {
    throw notImplemented(
      `${integration.name} (${integration.type}) cannot sort ${model.objectType} by '${query.sort}'; ` +
        `it can sort by: ${(handlers.sortFields ?? []).join(', ') || 'nothing'}`,
    )
  }
  for (const name of Object.keys(query.filters)) if (!handlers.filters.includes(name)) throw cannot(name)
  return query
}

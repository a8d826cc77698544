import { isoString } from '../../engine/dates.js'
import type { EventType } from '../../models/index.js'
import { AUTOCAPTURE_TYPES, EVENT_NAMES_BY_TYPE, RAGECLICK } from './event-types.js'
import { REPORT_DIMENSIONS } from './report-catalog.js'

/**
 * The fixed HogQL the integration sends. Every value from a caller goes through `hogqlString`,
 * `hogqlIdentifier` or `hogqlDateTime`; nothing is interpolated unescaped.
 */

const STRING_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\x07': '\\a',
}

/** Any character STRING_ESCAPES rewrites (each written as \uXXXX): a value without one is quoted as it is. */
const NEEDS_ESCAPE = new RegExp(
  `[${Object.keys(STRING_ESCAPES)
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('')}]`,
)

/**
 * A HogQL string literal (ClickHouse escaping: backslash sequences). Most values (dates, ids, names) need
 * no escape: they are quoted without being taken apart character by character, which cost more than the
 * rest of building a list query.
 */
export function hogqlString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `'${value}'`
  return `'${Array.from(value, (c) => STRING_ESCAPES[c] ?? c).join('')}'`
}

const BARE_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const RESERVED = new Set(
  'all and any array as asc between by case cast desc distinct else end false first from full group having ilike in inner interval is join last left like limit not null nulls offset on or order over right select settings then true union using when where with'.split(
    ' ',
  ),
)

/** A field name, backtick-quoted unless it is a plain, non-reserved identifier. */
export function hogqlIdentifier(name: string): string {
  if (BARE_IDENTIFIER.test(name) && !RESERVED.has(name.toLowerCase())) return name
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
}

export function hogqlProperty(name: string): string {
  return `properties.${hogqlIdentifier(name)}`
}

/**
 * A UTC instant; HogQL's toDateTime reads ISO-8601 best-effort. Written by the engine's `isoString`, the same
 * text as `toISOString` in about half its time (every list writes two of these).
 */
export function hogqlDateTime(date: Date): string {
  return `toDateTime(${hogqlString(isoString(date))})`
}

/** `'%text%'` for ILIKE, with the LIKE wildcards in the text escaped. */
export function hogqlContains(text: string): string {
  return hogqlString(`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
}

function hogqlList(values: readonly string[]): string {
  return `(${values.map(hogqlString).join(', ')})`
}

interface SelectParts {
  readonly select: readonly string[]
  readonly from: 'events' | 'sessions' | 'person_distinct_ids'
  readonly where?: readonly string[]
  readonly groupBy?: readonly string[]
  readonly orderBy?: readonly string[]
  readonly limit: number
  readonly offset?: number
}

function selectQuery(parts: SelectParts): string {
  const lines = [`SELECT ${parts.select.join(', ')}`, `FROM ${parts.from}`]
  if (parts.where && parts.where.length > 0) lines.push(`WHERE ${parts.where.join(' AND ')}`)
  if (parts.groupBy && parts.groupBy.length > 0) lines.push(`GROUP BY ${parts.groupBy.join(', ')}`)
  if (parts.orderBy && parts.orderBy.length > 0) lines.push(`ORDER BY ${parts.orderBy.join(', ')}`)
  lines.push(`LIMIT ${Math.floor(parts.limit)}${parts.offset ? ` OFFSET ${Math.floor(parts.offset)}` : ''}`)
  return lines.join('\n')
}

// ---- events ----------------------------------------------------------------------------------------------

/** Where a selected event column goes: a top-level field of the event, or one of its properties. */
export interface EventColumn {
  readonly source: 'column' | 'property'
  readonly name: string
}

/**
 * Whose events or sessions: a person (its uuid and distinct ids), or, when no person has the visitor id, the
 * id itself: the distinct id of events without a person (visitor-ids.ts).
 */
export type VisitorFilter =
  | { readonly personId: string; readonly distinctIds: readonly string[] }
  | { readonly unknownId: string }

/**
 * Every event of the person, whichever of its distinct ids it was sent under (HogQL resolves `person_id`);
 * a person-less visitor's events by their distinct id alone: naming `person_id` would make a project without
 * persons-on-events INNER JOIN `person_distinct_ids` and so drop exactly those events (visitor-ids.ts).
 */
function eventVisitorCondition(visitor: VisitorFilter): string {
  if ('personId' in visitor) return `person_id = ${hogqlString(visitor.personId)}`
  return `distinct_id = ${hogqlString(visitor.unknownId)}`
}

export interface EventFilter {
  readonly visitor?: VisitorFilter
  readonly sessionId?: string
  readonly types?: readonly EventType[]
  readonly start?: Date
  readonly end?: Date
  readonly search?: string
}

const AUTOCAPTURE_TYPE = "coalesce(properties.$event_type, '')"

/** The condition matching one unified type: the reverse of §12.1 (`event_type` on read). */
function conditionOf(type: EventType): string {
  if (type === 'CUSTOM') {
    const known = (Object.keys(EVENT_NAMES_BY_TYPE) as EventType[]).map(conditionOf)
    known.push(conditionOf('CLICK'), conditionOf('FORM_SUBMIT'))
    return `NOT (${known.join(' OR ')})`
  }
  const autocapture = Object.entries(AUTOCAPTURE_TYPES).find(([, t]) => t === type)?.[0]
  const parts: string[] = []
  if (autocapture)
    parts.push(`(event = '$autocapture' AND ${AUTOCAPTURE_TYPE} = ${hogqlString(autocapture)})`)
  if (type === 'CLICK') parts.push(`event = ${hogqlString(RAGECLICK)}`)
  const names = EVENT_NAMES_BY_TYPE[type]
  if (names && names.length > 0) parts.push(`event IN ${hogqlList(names)}`)
  return parts.length === 0 ? 'false' : `(${parts.join(' OR ')})`
}

export function eventTypeCondition(types: readonly EventType[]): string {
  return types.length === 1 ? conditionOf(types[0] as EventType) : `(${types.map(conditionOf).join(' OR ')})`
}

export function eventConditions(filter: EventFilter): string[] {
  const where: string[] = []
  if (filter.start) where.push(`timestamp >= ${hogqlDateTime(filter.start)}`)
  if (filter.end) where.push(`timestamp < ${hogqlDateTime(filter.end)}`)
  if (filter.visitor !== undefined) where.push(eventVisitorCondition(filter.visitor))
  if (filter.sessionId !== undefined) where.push(`properties.$session_id = ${hogqlString(filter.sessionId)}`)
  if (filter.types && filter.types.length > 0) where.push(eventTypeCondition(filter.types))
  if (filter.search !== undefined) {
    const like = hogqlContains(filter.search)
    where.push(
      `(event ILIKE ${like} OR properties.$current_url ILIKE ${like} OR properties.title ILIKE ${like})`,
    )
  }
  return where
}

function eventColumnExpr(column: EventColumn): string {
  return column.source === 'column' ? hogqlIdentifier(column.name) : hogqlProperty(column.name)
}

export function eventsListQuery(input: {
  readonly columns: readonly EventColumn[]
  readonly filter: EventFilter
  readonly sort: 'timestamp' | 'event'
  readonly desc: boolean
  readonly limit: number
  readonly offset: number
}): string {
  const direction = input.desc ? 'DESC' : 'ASC'
  return selectQuery({
    select: input.columns.map(eventColumnExpr),
    from: 'events',
    where: eventConditions(input.filter),
    // uuid breaks ties so that pages never overlap or skip events with equal sort values.
    orderBy: [
      `${input.sort} ${direction}`,
      ...(input.sort === 'event' ? [`timestamp ${direction}`] : []),
      `uuid ${direction}`,
    ],
    limit: input.limit,
    offset: input.offset,
  })
}

// ---- sessions --------------------------------------------------------------------------------------------

/** The sessions table columns the session mapping reads. */
export const SESSION_COLUMNS = [
  'session_id',
  'distinct_id',
  '$start_timestamp',
  '$end_timestamp',
  '$session_duration',
  '$entry_current_url',
  '$end_current_url',
  '$pageview_count',
  '$autocapture_count',
  '$screen_count',
  '$is_bounce',
  '$entry_utm_source',
  '$entry_utm_medium',
  '$entry_utm_campaign',
  '$entry_referring_domain',
  '$channel_type',
] as const

/** A session's source: the campaign source, else the referring domain (as §12.3 suggests; reports' SOURCE too). */
export const SESSION_SOURCE = REPORT_DIMENSIONS.SOURCE?.sessions as string

export interface SessionFilter {
  readonly visitor?: VisitorFilter
  readonly source?: string
  readonly medium?: string
  readonly start?: Date
  readonly end?: Date
  readonly search?: string
}

export const SESSION_SORTS = {
  start_at: '$start_timestamp',
  created_at: '$start_timestamp',
  end_at: '$end_timestamp',
  duration_seconds: '$session_duration',
  page_views: '$pageview_count',
} as const

export function sessionsListQuery(input: {
  readonly extraColumns: readonly string[]
  readonly filter: SessionFilter
  readonly sort: keyof typeof SESSION_SORTS
  readonly desc: boolean
  readonly limit: number
  readonly offset: number
}): string {
  const f = input.filter
  const where: string[] = []
  if (f.start) where.push(`$start_timestamp >= ${hogqlDateTime(f.start)}`)
  if (f.end) where.push(`$start_timestamp < ${hogqlDateTime(f.end)}`)
  // A session's distinct_id is its latest event's, one of its person's distinct ids.
  if (f.visitor !== undefined) {
    where.push(
      'personId' in f.visitor
        ? `distinct_id IN ${hogqlList(f.visitor.distinctIds.length > 0 ? f.visitor.distinctIds : [''])}`
        : `distinct_id = ${hogqlString(f.visitor.unknownId)}`,
    )
  }
  if (f.source !== undefined) where.push(`${SESSION_SOURCE} = ${hogqlString(f.source)}`)
  if (f.medium !== undefined) where.push(`$entry_utm_medium = ${hogqlString(f.medium)}`)
  if (f.search !== undefined) {
    const like = hogqlContains(f.search)
    where.push(`($entry_current_url ILIKE ${like} OR $end_current_url ILIKE ${like})`)
  }
  const direction = input.desc ? 'DESC' : 'ASC'
  return selectQuery({
    select: [...SESSION_COLUMNS, ...input.extraColumns.map(hogqlIdentifier)],
    from: 'sessions',
    where,
    orderBy: [`${SESSION_SORTS[input.sort]} ${direction}`, `session_id ${direction}`],
    limit: input.limit,
    offset: input.offset,
  })
}

/** One session, looked up within a time range (see windows.ts `sessionLookupRange`). */
export function sessionQuery(
  id: string,
  extraColumns: readonly string[],
  range: { readonly start: Date; readonly end: Date },
): string {
  return selectQuery({
    select: [...SESSION_COLUMNS, ...extraColumns.map(hogqlIdentifier)],
    from: 'sessions',
    where: [
      `session_id = ${hogqlString(id)}`,
      `$start_timestamp >= ${hogqlDateTime(range.start)}`,
      `$start_timestamp < ${hogqlDateTime(range.end)}`,
    ],
    limit: 1,
  })
}

/** The session attributes that live on events only, in the order `sessionDetailsQuery` selects them. */
export const SESSION_DETAIL_PROPERTIES = [
  '$device_type',
  '$browser',
  '$os',
  '$geoip_country_name',
  '$geoip_city_name',
] as const

/**
 * Device, browser, OS and place of a page of sessions (from each session's first event) and the exact
 * number of its events: one query per page, never one per session.
 */
export function sessionDetailsQuery(sessionIds: readonly string[], from: Date, to: Date): string {
  return selectQuery({
    select: [
      'properties.$session_id',
      ...SESSION_DETAIL_PROPERTIES.map((p) => `argMin(${hogqlProperty(p)}, timestamp)`),
      'count()',
    ],
    from: 'events',
    where: [
      `properties.$session_id IN ${hogqlList(sessionIds)}`,
      `timestamp >= ${hogqlDateTime(from)}`,
      `timestamp <= ${hogqlDateTime(to)}`,
    ],
    groupBy: ['properties.$session_id'],
    limit: sessionIds.length,
  })
}

// ---- visitors --------------------------------------------------------------------------------------------

/**
 * Sessions, page views, events and the last event's time per person for a page of persons: one grouped
 * query over all of their events, whenever they happened (events back-filled before the person was created
 * count too: PostHog keeps the `created_at` of the first event it processed, not the earliest timestamp).
 */
export function visitorTotalsQuery(personUuids: readonly string[]): string {
  return selectQuery({
    select: [
      'person_id',
      'count(DISTINCT properties.$session_id)',
      "countIf(event = '$pageview')",
      'count()',
      'max(timestamp)',
    ],
    from: 'events',
    where: [`person_id IN ${hogqlList(personUuids)}`],
    groupBy: ['person_id'],
    limit: personUuids.length,
  })
}

/** The person each of these distinct ids belongs to now (`person_distinct_ids`, as HogQL resolves events). */
export function personsOfDistinctIdsQuery(distinctIds: readonly string[]): string {
  return selectQuery({
    select: ['distinct_id', 'person_id'],
    from: 'person_distinct_ids',
    where: [`distinct_id IN ${hogqlList(distinctIds)}`],
    limit: distinctIds.length,
  })
}

// ---- reports ---------------------------------------------------------------------------------------------

export interface ReportQueryInput {
  readonly table: 'events' | 'sessions'
  readonly metrics: readonly string[]
  readonly dimension?: string
  readonly start?: Date
  readonly end?: Date
  readonly limit: number
  readonly offset: number
}

/** Aggregates over one table, optionally grouped by a dimension (which then leads the columns). */
export function reportQuery(input: ReportQueryInput): string {
  const time = input.table === 'events' ? 'timestamp' : '$start_timestamp'
  const where: string[] = []
  if (input.start) where.push(`${time} >= ${hogqlDateTime(input.start)}`)
  if (input.end) where.push(`${time} < ${hogqlDateTime(input.end)}`)
  const dimension = input.dimension
  return selectQuery({
    select: dimension ? [dimension, ...input.metrics] : input.metrics,
    from: input.table,
    where,
    ...(dimension ? { groupBy: [dimension], orderBy: [`${dimension} ASC`] } : {}),
    limit: input.limit,
    offset: input.offset,
  })
}

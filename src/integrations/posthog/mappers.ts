import { isoTextOf } from '../../engine/dates.js'
import { listedInOrder, putShaped } from '../../engine/fields.js'
import {
  type Dimension,
  type EventType,
  GENDERS,
  type MetricType,
  modelOf,
  type UnifiedRecord,
} from '../../models/index.js'
import { timeBucketLabelAt, timeBucketLabelOf } from '../time-buckets.js'
import type { WriteBody } from '../types.js'
import { eventNameFor, eventTypeOf } from './event-types.js'
import type { EventColumn } from './hogql.js'
import type { PosthogCapture, PosthogEvent, PosthogPerson, PosthogProject } from './types.js'
import { rowVisitorId } from './visitor-ids.js'
import { instantOf, localDayRange } from './zones.js'

/**
 * Pure mappings between PostHog records and unified ones, named by direction. Read mappers never emit
 * null: a missing value stays undefined. Property values read through HogQL arrive as strings, so numbers
 * and booleans are parsed from either form.
 */

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v)
    return Number.isFinite(n) ? n : undefined
  }
  return undefined
}

function date(v: unknown): Date | undefined {
  if (typeof v !== 'string' || v === '') return undefined
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/**
 * An event's time: HogQL's `2024-12-31T00:04:40.133000Z` as the ISO text the response writes for it (no
 * Date made and written back per event, see isoTextOf), any other form as a Date; shaping writes both the
 * same way.
 */
function instant(v: unknown): string | Date | undefined {
  if (typeof v !== 'string' || v === '') return undefined
  return isoTextOf(v) ?? date(v)
}

function bool(v: unknown): boolean | undefined {
  if (v === true || v === 1 || v === 'true' || v === '1') return true
  if (v === false || v === 0 || v === 'false' || v === '0') return false
  return undefined
}

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

/** Drops undefined values, so a body sent to PostHog carries only what the caller set. */
function defined(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) if (v !== undefined) out[k] = v
  return out
}

/**
 * `metadata` is a map of objects (sdk-contract R10), so each custom property `k: v` becomes `k: { value: v }`.
 * PostHog's own `$` properties and the mapped ones stay out of it (they are fields, or in `raw`).
 */
function metadataOf(properties: Record<string, unknown>, mapped: ReadonlySet<string>) {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [k, v] of Object.entries(properties)) {
    if (k.startsWith('$') || mapped.has(k) || v === null || v === undefined) continue
    out[k] = { value: v }
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** The reverse of `metadataOf`: `{ value: v }` becomes `v`, any other object is kept as it is. */
function propertiesFromMetadata(metadata: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(objectOf(metadata) ?? {})) {
    const o = objectOf(v)
    out[k] = o && Object.keys(o).length === 1 && 'value' in o ? o.value : v
  }
  return out
}

// ---- property (project) ------------------------------------------------------------------------------------

export function fromPosthogProject(project: PosthogProject): UnifiedRecord {
  return {
    id: String(project.id),
    created_at: date(project.created_at),
    updated_at: date(project.updated_at),
    name: text(project.name),
    timezone: text(project.timezone),
    currency: text(project.base_currency),
    parent_id: text(project.organization),
    raw: project,
  }
}

/** Project fields PostHog accepts; `raw` may add provider-only ones (spec 2.7), the unified fields win. */
export function toPosthogProject(body: WriteBody): Record<string, unknown> {
  return {
    ...objectOf(body.raw),
    ...defined({ name: body.name, timezone: body.timezone, base_currency: body.currency }),
  }
}

// ---- event -------------------------------------------------------------------------------------------------

/** Unified event fields and the PostHog properties they come from (providers.md §2.5). */
export const EVENT_FIELD_PROPERTIES = {
  session_id: '$session_id',
  page_url: '$current_url',
  page_title: 'title',
  page_referrer: '$referrer',
  device: '$device_type',
  browser: '$browser',
  os: '$os',
  country: '$geoip_country_name',
  country_code: '$geoip_country_code',
  region: '$geoip_subdivision_1_name',
  city: '$geoip_city_name',
  value: 'revenue',
  currency: 'currency',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
} as const

/** Every property the event mapping reads, for queries that select properties one by one. */
export const EVENT_MAPPED_PROPERTIES: readonly string[] = [
  ...Object.values(EVENT_FIELD_PROPERTIES),
  '$event_type',
  '$screen_name',
]
const EVENT_MAPPED = new Set(EVENT_MAPPED_PROPERTIES)

/** Reads one unified field; `visitorId` is the event's unified visitor id, decided by the caller. */
type EventFieldReader = (event: PosthogEvent, propertyId: string, visitorId: string | undefined) => unknown

const propertyText =
  (property: string): EventFieldReader =>
  (event) =>
    text(event.properties[property])

/**
 * How each unified event field is read from a PostHog event: the one definition behind both the full
 * mapping (`fromPosthogEvent`) and the mapping of only the fields a list asked for (`eventMapperFor`).
 */
const EVENT_FIELD_READERS: Readonly<Record<string, EventFieldReader>> = {
  id: (event) => event.uuid ?? event.id,
  created_at: (event) => instant(event.timestamp),
  name: (event) => event.event,
  event_type: (event) => eventTypeOf(event.event, text(event.properties.$event_type)),
  visitor_id: (_event, _propertyId, visitorId) => visitorId,
  property_id: (_event, propertyId) => propertyId,
  ...Object.fromEntries(
    Object.entries(EVENT_FIELD_PROPERTIES).map(([field, property]) => [field, propertyText(property)]),
  ),
  page_title: (event) =>
    text(event.properties[EVENT_FIELD_PROPERTIES.page_title]) ?? text(event.properties.$screen_name),
  value: (event) => num(event.properties[EVENT_FIELD_PROPERTIES.value]),
  metadata: (event) => metadataOf(event.properties, EVENT_MAPPED),
}

/**
 * `visitorId` is the event's unified visitor id (the handler scopes it to the project); by default the
 * person HogQL resolved the event to (`person_id`), else its distinct id (visitor-ids.ts).
 */
export type EventMapper = (event: PosthogEvent, propertyId: string, visitorId?: string) => UnifiedRecord

/**
 * A mapping that builds only the `listed` unified fields (every field when undefined), plus `raw`; made
 * once per request. A page of `fields=id,name` then costs two readers per event, not twenty-five: fields
 * nobody asked for are never parsed, looked up or built, and each one built is what `fromPosthogEvent`
 * builds.
 */
export function eventMapperFor(listed?: ReadonlySet<string>): EventMapper {
  const chosen = Object.entries(EVENT_FIELD_READERS).filter(([field]) => !listed || listed.has(field))
  // Two arrays walked by index, for every record of a page.
  const fields = chosen.map(([field]) => field)
  const readers = chosen.map(([, read]) => read)
  return (event, propertyId, visitorId = rowVisitorId(event.person_id, event.distinct_id)) => {
    const record: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) record[fields[i]!] = readers[i]!(event, propertyId, visitorId)
    record.raw = event
    return record as UnifiedRecord
  }
}

/** Reads one unified field straight from a HogQL row (see eventRowMapperFor). */
type EventRowReader = (row: readonly unknown[], propertyId: string, visitorId: string | undefined) => unknown

/**
 * Where the row holds a column or a property: its index among the selected columns, -1 when not selected.
 * A property HogQL answers as null reads as absent, as `eventFromRow` leaves it out of `properties`.
 */
interface RowLayout {
  column(name: string): number
  property(name: string): number
}

const cell = (row: readonly unknown[], i: number): unknown => (i < 0 ? undefined : row[i])
const propertyCell = (row: readonly unknown[], i: number): unknown =>
  i < 0 ? undefined : (row[i] ?? undefined)

/**
 * The row twin of each EVENT_FIELD_READERS entry that needs no whole `properties` blob: each reads from the
 * row what its twin reads from the event `eventFromRow` zips that row into (event-mapper.test.ts holds every
 * pair equal over generated rows). `metadata` has no twin: it needs every property, and its lists zip.
 */
const EVENT_ROW_READERS: Readonly<Record<string, (at: RowLayout) => EventRowReader>> = {
  id: (at) => {
    const uuid = at.column('uuid')
    return (row) => cell(row, uuid) ?? undefined
  },
  created_at: (at) => {
    const timestamp = at.column('timestamp')
    return (row) => instant(cell(row, timestamp))
  },
  name: (at) => {
    const event = at.column('event')
    return (row) => cell(row, event)
  },
  event_type: (at) => {
    const event = at.column('event')
    const autocapture = at.property('$event_type')
    return (row) => eventTypeOf(cell(row, event) as string, text(propertyCell(row, autocapture)))
  },
  visitor_id: (at) => {
    const personId = at.column('person_id')
    const distinctId = at.column('distinct_id')
    return (row, _propertyId, visitorId) =>
      visitorId ?? rowVisitorId(cell(row, personId), cell(row, distinctId))
  },
  property_id: () => (_row, propertyId) => propertyId,
  ...Object.fromEntries(
    Object.entries(EVENT_FIELD_PROPERTIES).map(([field, property]) => [
      field,
      (at: RowLayout): EventRowReader => {
        const i = at.property(property)
        return (row) => text(propertyCell(row, i))
      },
    ]),
  ),
  page_title: (at) => {
    const title = at.property(EVENT_FIELD_PROPERTIES.page_title)
    const screen = at.property('$screen_name')
    return (row) => text(propertyCell(row, title)) ?? text(propertyCell(row, screen))
  },
  value: (at) => {
    const revenue = at.property(EVENT_FIELD_PROPERTIES.value)
    return (row) => num(propertyCell(row, revenue))
  },
}

const EVENT_MODEL = modelOf('analytics_event')!

/** A HogQL row mapped straight to the listed unified fields, without `raw`, as the response sends them. */
export type EventRowMapper = (
  row: readonly unknown[],
  propertyId: string,
  visitorId: string | undefined,
) => UnifiedRecord

/**
 * The listed fields of a page of HogQL rows selected as `columns` (`eventColumnsFor`), built straight from
 * each row: no PostHog event and `properties` object is zipped per row only to be read once (a third of a
 * page's mapping, issue 12). Each record is built as the response sends it (cleaned, in the model's order,
 * a missing value left out: the engine's `putShaped`), so that a page of them is a `shapedPage`. Undefined
 * when a listed field has no row reader (`metadata`) or when nothing was listed; `raw` needs the zipped
 * event, so callers that want it use `eventMapperFor`.
 */
export function eventRowMapperFor(
  columns: readonly EventColumn[],
  listed: ReadonlySet<string> | undefined,
): EventRowMapper | undefined {
  if (!listed) return undefined
  const layout: RowLayout = {
    column: (name) => columns.findIndex((c) => c.source === 'column' && c.name === name),
    property: (name) => columns.findIndex((c) => c.source === 'property' && c.name === name),
  }
  const fields: string[] = []
  const readers: EventRowReader[] = []
  for (const field of listedInOrder(EVENT_MODEL, listed)) {
    if (!Object.hasOwn(EVENT_FIELD_READERS, field)) continue
    const reader = EVENT_ROW_READERS[field]
    if (!reader) return undefined
    fields.push(field)
    readers.push(reader(layout))
  }
  // Each record already as the response sends it (shapedPage): a missing value is left out here.
  return (row, propertyId, visitorId) => {
    const record: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++)
      putShaped(record, fields[i]!, readers[i]!(row, propertyId, visitorId))
    return record as UnifiedRecord
  }
}

const everyEventField = eventMapperFor()

export function fromPosthogEvent(event: PosthogEvent, propertyId: string, visitorId?: string): UnifiedRecord {
  return everyEventField(event, propertyId, visitorId)
}

/**
 * A capture payload for a unified event. The event name is the caller's `name`, else the PostHog name of
 * its `event_type`; custom properties come from `metadata` and `raw.properties`.
 */
export function toPosthogCapture(
  body: WriteBody,
  ids: {
    readonly uuid: string
    readonly apiKey: string
    readonly timestamp: string
    readonly distinctId: string
  },
): PosthogCapture | undefined {
  const type = text(body.event_type) as EventType | undefined
  const standard = type ? eventNameFor(type) : undefined
  const event = text(body.name) ?? standard?.event
  if (event === undefined) return undefined
  const autocaptureType = event === '$autocapture' ? standard?.autocaptureType : undefined
  const fields: Record<string, unknown> = {}
  for (const [field, property] of Object.entries(EVENT_FIELD_PROPERTIES)) fields[property] = body[field]
  return {
    api_key: ids.apiKey,
    event,
    distinct_id: ids.distinctId,
    uuid: ids.uuid,
    timestamp: ids.timestamp,
    properties: {
      ...objectOf(objectOf(body.raw)?.properties),
      ...propertiesFromMetadata(body.metadata),
      ...defined(fields),
      ...(autocaptureType ? { $event_type: autocaptureType } : {}),
    },
  }
}

// ---- session -----------------------------------------------------------------------------------------------

/** Session attributes read from the session's first event (slow fields). */
export interface SessionDetails {
  readonly device?: string
  readonly browser?: string
  readonly os?: string
  readonly country?: string
  readonly city?: string
  readonly events_count?: number
}

/** A row of the `sessions` table (keyed by column name), plus its details when they were fetched. */
/**
 * `visitorId` is the session's unified visitor id: the person of its `distinct_id` (the handler reads it
 * from `person_distinct_ids` and scopes it), else the distinct id.
 */
export function fromPosthogSession(
  row: Record<string, unknown>,
  propertyId: string,
  details?: SessionDetails,
  visitorId: string | undefined = text(row.distinct_id),
): UnifiedRecord {
  const start = date(row.$start_timestamp)
  return {
    id: text(row.session_id),
    created_at: start,
    property_id: propertyId,
    visitor_id: visitorId,
    start_at: start,
    end_at: date(row.$end_timestamp),
    duration_seconds: num(row.$session_duration),
    landing_page: text(row.$entry_current_url),
    exit_page: text(row.$end_current_url),
    page_views: num(row.$pageview_count),
    source: text(row.$entry_utm_source) ?? text(row.$entry_referring_domain),
    medium: text(row.$entry_utm_medium),
    campaign: text(row.$entry_utm_campaign),
    is_bounce: bool(row.$is_bounce),
    ...details,
    raw: row,
  }
}

// ---- visitor (person) --------------------------------------------------------------------------------------

/** Unified visitor fields and the person properties they come from. */
export const VISITOR_FIELD_PROPERTIES = {
  email: 'email',
  name: 'name',
  age: 'age',
  gender: 'gender',
  country: '$geoip_country_name',
  country_code: '$geoip_country_code',
  city: '$geoip_city_name',
  timezone: '$geoip_time_zone',
  language: '$browser_language',
} as const
const VISITOR_MAPPED = new Set<string>([
  ...Object.values(VISITOR_FIELD_PROPERTIES),
  'first_name',
  'last_name',
])

/** What the person's events say (one grouped HogQL query per page; the persons API has none of it). */
export interface VisitorTotals {
  readonly total_sessions: number
  readonly total_page_views: number
  readonly total_events: number
  readonly last_seen_at?: Date
}

function genderOf(v: unknown): string | undefined {
  const raw = text(v)
  if (raw === undefined) return undefined
  const normalized = raw
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')
  return (GENDERS as readonly string[]).includes(normalized) ? normalized : raw
}

/** The visitor fields that come from person properties. */
function visitorFieldsOf(p: Record<string, unknown>): UnifiedRecord {
  const fullName = [text(p.first_name), text(p.last_name)].filter((s) => s !== undefined).join(' ')
  return {
    email: text(p.email),
    name: text(p.name) ?? (fullName === '' ? undefined : fullName),
    age: num(p.age),
    gender: genderOf(p.gender),
    country: text(p.$geoip_country_name),
    country_code: text(p.$geoip_country_code),
    city: text(p.$geoip_city_name),
    language: text(p.$browser_language),
    timezone: text(p.$geoip_time_zone),
    metadata: metadataOf(p, VISITOR_MAPPED),
  }
}

/**
 * A person (a list row or a detail) as a visitor. The visitor id is the person's uuid (visitor-ids.ts), which
 * events and sessions report as their `visitor_id`; `raw.__id` repeats it, as earlier versions put it there.
 * Neither view has a last-seen time: `last_seen_at` comes with the totals, from the person's events.
 */
export function fromPosthogPerson(
  person: PosthogPerson,
  propertyId: string,
  totals?: VisitorTotals,
): UnifiedRecord {
  return {
    id: person.uuid,
    created_at: date(person.created_at),
    property_id: propertyId,
    ...visitorFieldsOf(person.properties ?? {}),
    first_seen_at: date(person.created_at),
    ...totals,
    raw: { ...person, __id: person.uuid },
  }
}

/**
 * The visitor an `$identify` creates. PostHog makes the person asynchronously and answers no id, so the
 * record is what was sent under the person's uuid (the caller knows it); `raw` is the capture (without the key).
 */
export function fromPosthogIdentify(
  capture: PosthogCapture,
  propertyId: string,
  personUuid: string,
): UnifiedRecord {
  const { api_key: _key, ...sent } = capture
  return {
    id: personUuid,
    property_id: propertyId,
    ...visitorFieldsOf(objectOf(capture.properties.$set) ?? {}),
    raw: sent,
  }
}

/** The person properties to `$set` for a unified visitor body (metadata included). */
export function toPosthogPersonProperties(body: WriteBody): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const [field, property] of Object.entries(VISITOR_FIELD_PROPERTIES)) fields[property] = body[field]
  return {
    ...objectOf(objectOf(body.raw)?.properties),
    ...propertiesFromMetadata(body.metadata),
    ...defined(fields),
  }
}

/** PostHog creates and updates persons through an `$identify` event carrying `$set`. */
export function toPosthogIdentify(
  properties: Record<string, unknown>,
  ids: {
    readonly uuid: string
    readonly apiKey: string
    readonly timestamp: string
    readonly distinctId: string
  },
): PosthogCapture {
  return {
    api_key: ids.apiKey,
    event: '$identify',
    distinct_id: ids.distinctId,
    uuid: ids.uuid,
    timestamp: ids.timestamp,
    properties: { $set: properties },
  }
}

// ---- report ------------------------------------------------------------------------------------------------

export interface ReportMetricValue {
  readonly type: MetricType
  readonly value: unknown
}

const HOUR_MS = 3_600_000

/**
 * The instants a DATE or HOUR bucket covers. HogQL cuts them in the project's time zone: a DATE value is a
 * local day of that zone (from its local midnight to the next, 23 to 25 hours), an HOUR value a local
 * hour start (with the zone's offset in the answer; without one it is read as the zone's wall time). The
 * range is clipped to the requested one, since the first and last buckets may be partial.
 */
function bucketRange(
  dimension: Dimension | undefined,
  value: unknown,
  timeZone: string,
  requested: { readonly start?: Date; readonly end?: Date },
): { start?: Date; end?: Date } {
  if ((dimension !== 'DATE' && dimension !== 'HOUR') || typeof value !== 'string') return {}
  let range: { start: Date; end: Date } | undefined
  if (dimension === 'DATE') {
    range = localDayRange(value.slice(0, 10), timeZone)
  } else {
    const start = instantOf(value, timeZone)
    if (start) range = { start, end: new Date(start.getTime() + HOUR_MS) }
  }
  if (!range) return {}
  const start = requested.start && requested.start > range.start ? requested.start : range.start
  const end = requested.end && requested.end < range.end ? requested.end : range.end
  return { start, end }
}

/**
 * A dimension value as unified reports show it (time-buckets.ts): a date is the project's local day
 * (`YYYY-MM-DD`), an hour the project's local hour (`YYYY-MM-DDTHH:00`), read from the instant it starts.
 */
function dimensionValueOf(dimension: Dimension, value: unknown, timeZone: string): string | undefined {
  if (dimension === 'HOUR') {
    const start = typeof value === 'string' ? instantOf(value, timeZone) : undefined
    // Text that does not read as an instant is kept as PostHog gave it, as every connector keeps it.
    return start ? timeBucketLabelAt('HOUR', start, timeZone) : text(value)
  }
  if (dimension === 'DATE') {
    return typeof value === 'string' ? (timeBucketLabelOf('DATE', value.slice(0, 10)) ?? value) : undefined
  }
  return text(value)
}

/** One unified report: metrics for the whole range, or for one value of a dimension. */
export function fromPosthogReport(input: {
  readonly propertyId: string
  readonly metrics: readonly ReportMetricValue[]
  readonly dimension?: Dimension
  readonly dimensionValue?: unknown
  readonly start?: Date
  readonly end?: Date
  /** The project's time zone, in which HogQL cut DATE and HOUR buckets. */
  readonly timeZone: string
  readonly raw: Record<string, unknown>
}): UnifiedRecord {
  const bucket = bucketRange(input.dimension, input.dimensionValue, input.timeZone, input)
  const dimensionValue = input.dimension
    ? dimensionValueOf(input.dimension, input.dimensionValue, input.timeZone)
    : undefined
  return {
    property_id: input.propertyId,
    start_at: bucket.start ?? input.start,
    end_at: bucket.end ?? input.end,
    // A metric PostHog has no value for (a rate of no sessions is null) is left out, as every integration
    // leaves out what its provider does not give; a metric without a value would say nothing.
    metrics: input.metrics.flatMap((m) => {
      const value = num(m.value)
      if (value === undefined) return []
      return [
        {
          type: m.type,
          value,
          ...(input.dimension ? { dimension: input.dimension, dimension_value: dimensionValue } : {}),
        },
      ]
    }),
    raw: input.raw,
  }
}

import { randomUUID } from 'node:crypto'
import { shapedPage } from '../../engine/fields.js'
import { badRequest, notFound } from '../../errors.js'
import { EVENT_TYPES, type EventType, type UnifiedRecord } from '../../models/index.js'
import type { FieldPlan, HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { type EventColumn, eventsListQuery } from './hogql.js'
import {
  EVENT_FIELD_PROPERTIES,
  EVENT_MAPPED_PROPERTIES,
  type EventRowMapper,
  eventMapperFor,
  eventRowMapperFor,
  fromPosthogEvent,
  toPosthogCapture,
} from './mappers.js'
import {
  lookupPerson,
  personWithDistinctId,
  visitorFilterOf,
  visitorsOfDistinctIds,
} from './person-lookup.js'
import {
  capture,
  captureTeam,
  checkPropertyFilter,
  HOGQL_OWNED,
  PERSON_LOOKUP_OWNED,
  projectIdOf,
  restQuery,
  runHogQL,
} from './requests.js'
import type { PosthogEvent, PosthogPerson } from './types.js'
import { personUuidOf, rowVisitorId, scopedVisitorId, UUID, unscopedVisitorId } from './visitor-ids.js'
import { boundedRange } from './windows.js'

/** Columns of the `events` table (as opposed to keys inside `properties`). */
const EVENT_TABLE_COLUMNS = new Set([
  'uuid',
  'event',
  'distinct_id',
  'timestamp',
  'properties',
  'person_id',
  'elements_chain',
  'created_at',
])

const BASE_COLUMNS: readonly EventColumn[] = ['uuid', 'event', 'distinct_id', 'timestamp'].map((name) => ({
  source: 'column',
  name,
}))

/** A column's identity: its source and its name (the source has no colon, so no two columns share a key). */
const columnKey = (c: EventColumn) => `${c.source}:${c.name}`

/**
 * What to select. The whole `properties` blob (often kilobytes an event) only when the whole `raw` or the
 * slow `metadata` is wanted; otherwise just the properties the mapping reads, plus each `raw.<name>`,
 * selected as `properties.<name>` so PostHog returns exactly that property.
 */
export function eventColumnsFor(fields: FieldPlan): EventColumn[] {
  const full = fields.raw || fields.slow.has('metadata')
  // No `person_id`: visitor ids come from the distinct ids (visitor-ids.ts says why).
  const columns: EventColumn[] = [...BASE_COLUMNS]
  // Each column once, looked up in a set: a scan of the columns per `raw.<name>` was quadratic in `fields`,
  // and 60,000 names in one tool call held the event loop 11 s.
  const chosen = new Set(columns.map(columnKey))
  const add = (c: EventColumn) => {
    const key = columnKey(c)
    if (chosen.has(key)) return
    chosen.add(key)
    columns.push(c)
  }
  if (full) add({ source: 'column', name: 'properties' })
  else for (const name of mappedPropertiesFor(fields.listed)) add({ source: 'property', name })
  for (const name of fields.rawNames) {
    if (EVENT_TABLE_COLUMNS.has(name)) add({ source: 'column', name })
    else if (!full) add({ source: 'property', name })
  }
  return columns
}

/**
 * The properties the mapping reads for the listed fields (all of them when `fields` was not given): a page
 * of `id,name,event_type,created_at` selects one property, not twenty, so PostHog answers a fraction of
 * the bytes and the page maps in a fraction of the time.
 */
function mappedPropertiesFor(listed: ReadonlySet<string> | undefined): readonly string[] {
  if (!listed) return EVENT_MAPPED_PROPERTIES
  const names: string[] = []
  for (const [field, property] of Object.entries(EVENT_FIELD_PROPERTIES)) {
    if (listed.has(field)) names.push(property)
  }
  if (listed.has('event_type')) names.push('$event_type')
  if (listed.has('page_title')) names.push('$screen_name')
  return names
}

function parseProperties(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return {}
  try {
    const parsed: unknown = JSON.parse(value)
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** `raw.<name>` reads `raw[name]`: copy each named property to the top of the record it was selected into. */
function exposeRawNames(
  event: Record<string, unknown>,
  properties: Record<string, unknown>,
  rawNames: readonly string[],
) {
  for (const name of rawNames) {
    if (!EVENT_TABLE_COLUMNS.has(name) && properties[name] !== undefined) event[name] = properties[name]
  }
}

/** Zips a HogQL row with the columns it was selected with into PostHog's event shape. */
export function eventFromRow(
  columns: readonly EventColumn[],
  row: readonly unknown[],
  rawNames: readonly string[],
): PosthogEvent {
  const event: Record<string, unknown> = {}
  let properties: Record<string, unknown> = {}
  // An index loop: a forEach callback was a closure made per row, a hundred a page.
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i]!
    const value = row[i]
    if (column.source === 'property') {
      if (value !== null && value !== undefined) properties[column.name] = value
    } else if (column.name === 'properties') {
      properties = { ...parseProperties(value), ...properties }
    } else {
      event[column.name] = value
    }
  }
  event.properties = properties
  if (rawNames.length > 0) exposeRawNames(event, properties, rawNames)
  return event as PosthogEvent
}

function eventTypesOf(value: unknown): EventType[] | undefined {
  if (typeof value !== 'string') return undefined
  const types = value.split(',').map((t) => t.trim().toUpperCase())
  for (const t of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(t)) {
      throw badRequest(`type: '${t}' is not an event type; use one of ${EVENT_TYPES.join(', ')}`)
    }
  }
  return types as EventType[]
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const dateOf = (v: unknown) => (v instanceof Date ? v : undefined)

async function listEvents(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const f = query.filters
  const projectId = projectIdOf(ctx, f.property_id)
  const { columns, rowMapper } = eventPagePlanOf(ctx.fields)
  const sort = query.sort === 'name' ? 'event' : 'timestamp'
  // Without start_gte the list covers the default window (windows.ts): never a scan of all time.
  const range = boundedRange(dateOf(f.start_gte), dateOf(f.end_lt))
  const visitorId = str(f.visitor_id)
  const visitor = visitorId === undefined ? undefined : await visitorFilterOf(ctx, projectId, visitorId)
  const hogql = eventsListQuery({
    columns,
    filter: {
      visitor,
      sessionId: str(f.session_id),
      types: eventTypesOf(f.type),
      start: range.start,
      end: range.end,
      search: query.query,
    },
    sort,
    desc: (query.order ?? (sort === 'event' ? 'asc' : 'desc')) === 'desc',
    limit: query.limit,
    offset: query.offset,
  })
  const res = await runHogQL(ctx, projectId, hogql, 'unigate event list', query.limit)
  const rows = res.results
  const distinctId = columns.findIndex((c) => c.source === 'column' && c.name === 'distinct_id')
  // Persons are looked up only for a page that answers visitor_id.
  const visitorOf = wantsVisitor(ctx)
    ? await visitorsOfDistinctIds(
        ctx,
        projectId,
        rows.map((row) => row[distinctId]),
        visitor,
      )
    : noVisitor
  if (rowMapper) return shapedPage(rows.map((row) => rowMapper(row, projectId, visitorOf(row[distinctId]))))
  const toRecord = eventMapperFor(ctx.fields.listed)
  return rows.map((row) => {
    const event = eventFromRow(columns, row, ctx.fields.rawNames)
    return toRecord(event, projectId, visitorOf(event.distinct_id))
  })
}

/** What a page of events selects, and how its rows become records when they are read straight from them. */
interface EventPagePlan {
  readonly columns: readonly EventColumn[]
  /**
   * Only the listed fields are built: the response leaves out every other one (recordShaper). Without `raw`
   * they are read straight from the rows, with no event zipped per row, each record already as the response
   * sends it, so that the engine sends the page as it is (shapedPage). Undefined otherwise.
   */
  readonly rowMapper: EventRowMapper | undefined
}

/**
 * Plans of pages that list their fields and read no `raw` or slow field, by the listed set: parseFields
 * answers one set per `fields` text, so a caller's usual `fields` plans its pages once, not per request.
 */
const plansByListed = new WeakMap<ReadonlySet<string>, EventPagePlan>()

function eventPagePlanOf(fields: FieldPlan): EventPagePlan {
  const { listed } = fields
  const plain = listed !== undefined && !fields.raw && fields.rawNames.length === 0 && fields.slow.size === 0
  const known = plain ? plansByListed.get(listed) : undefined
  if (known) return known
  const columns = Object.freeze(eventColumnsFor(fields))
  const plan: EventPagePlan = {
    columns,
    rowMapper: fields.raw || fields.rawNames.length > 0 ? undefined : eventRowMapperFor(columns, listed),
  }
  if (plain) plansByListed.set(listed, plan)
  return plan
}

const noVisitor = (): undefined => undefined

/** Whether the caller reads `visitor_id` (it costs a request where PostHog does not answer it). */
const wantsVisitor = (ctx: HandlerContext) => !ctx.fields.listed || ctx.fields.listed.has('visitor_id')

async function getEvent(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  if (!UUID.test(id)) throw notFound(`event ${id}: PostHog event ids are UUIDs`)
  const projectId = projectIdOf(ctx)
  const event = await ctx.client.json<PosthogEvent>({
    path: `/api/projects/${projectId}/events/${id}/`,
    query: restQuery(ctx),
  })
  exposeRawNames(event, event.properties ?? {}, ctx.fields.rawNames)
  // The legacy event names its distinct id, not its person: the persons API says whose it is; without a
  // person the distinct id is the visitor, as lists show it (visitor-ids.ts).
  if (!wantsVisitor(ctx)) return fromPosthogEvent(event, projectId, undefined)
  const person = await personWithDistinctId(ctx, projectId, event.distinct_id)
  const visitorId = rowVisitorId(person?.uuid, event.distinct_id)
  return fromPosthogEvent(
    event,
    projectId,
    visitorId === undefined ? undefined : scopedVisitorId(ctx, projectId, visitorId),
  )
}

function timestampOf(raw: unknown): string {
  const given = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).timestamp : undefined
  if (typeof given === 'string' && !Number.isNaN(Date.parse(given))) return given
  return new Date().toISOString()
}

/**
 * Capture never answers an id, so the event gets a uuid here, is sent with it, and is returned under it.
 * The event time is `raw.timestamp` when given (created_at is read-only), else now. `visitor_id` names a
 * person (its events are sent under one of its distinct ids: an identified one when it has one) or, when
 * no person has it, is the distinct id of a new visitor, whose id is the uuid PostHog derives for the person
 * it creates (visitor-ids.ts `personUuidOf`), or the distinct id itself when the event is person-less.
 */
async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const visitorId = str(body.visitor_id)
  if (!visitorId)
    throw badRequest('visitor_id is required: PostHog silently drops events without a distinct id')
  const projectId = projectIdOf(ctx, body.property_id)
  const person = await lookupPerson(ctx, projectId, visitorId)
  const distinctId = person ? preferredDistinctId(person) : unscopedVisitorId(projectId, visitorId)
  const team = await captureTeam(ctx, projectId)
  const uuid = randomUUID()
  const payload = toPosthogCapture(body, {
    uuid,
    apiKey: team.apiKey,
    distinctId,
    timestamp: timestampOf(body.raw),
  })
  if (!payload) throw badRequest('name or event_type is required to create a PostHog event')
  await capture(ctx, payload)
  const { event, distinct_id, timestamp, properties } = payload
  // A person-less event (`$process_person_profile: false`) creates no person: its distinct id names it.
  const visitor =
    person?.uuid ??
    (properties.$process_person_profile === false ? distinctId : personUuidOf(team.teamId, distinctId))
  return fromPosthogEvent(
    { uuid, event, distinct_id, timestamp, properties },
    projectId,
    scopedVisitorId(ctx, projectId, visitor),
  )
}

/** The distinct id to send a person's events under: an identified one (not PostHog's anonymous form), else any. */
function preferredDistinctId(person: PosthogPerson): string {
  const ids = [...(person.distinct_ids ?? [])].sort()
  return ids.find((d) => !ANONYMOUS_DISTINCT_ID.test(d)) ?? ids[0] ?? person.uuid
}

/**
 * PostHog's `is_anonymous_id` (posthog/utils.py `ANONYMOUS_REGEX`): five lowercase alphanumeric groups joined
 * by dashes, as posthog-js's anonymous ids and lowercase UUIDs are.
 */
const ANONYMOUS_DISTINCT_ID = /^([a-z0-9]+-){4}([a-z0-9]+)$/

export const eventHandlers: ObjectHandlers = {
  rawOwned: { ...HOGQL_OWNED, ...PERSON_LOOKUP_OWNED },
  list: listEvents,
  checkList: (q) => {
    checkPropertyFilter(q)
    eventTypesOf(q.filters.type)
  },
  get: getEvent,
  create: createEvent,
  listParams: ['sort', 'order', 'query'],
  filters: ['property_id', 'session_id', 'visitor_id', 'type', 'start_gte', 'end_lt'],
  sortFields: ['created_at', 'name'],
  slowFields: ['metadata'],
}

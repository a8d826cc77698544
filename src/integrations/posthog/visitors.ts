import { randomUUID } from 'node:crypto'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { visitorTotalsQuery } from './hogql.js'
import {
  fromPosthogIdentify,
  fromPosthogPerson,
  toPosthogIdentify,
  toPosthogPersonProperties,
  type VisitorTotals,
} from './mappers.js'
import { lookupPerson, personsPath, personWithDistinctId } from './person-lookup.js'
import {
  capture,
  captureTeam,
  checkPropertyFilter,
  HOGQL_OWNED,
  notFoundAtPosthog,
  PERSON_LOOKUP_OWNED,
  projectIdOf,
  REST_LIST_OWNED,
  restQuery,
  runHogQL,
} from './requests.js'
import type { PosthogPage, PosthogPerson } from './types.js'
import { personUuidOf, scopedVisitorId } from './visitor-ids.js'

// Visitors are PostHog persons; their id is the person's uuid (visitor-ids.ts says why).

/** From the person's events (one grouped query per page); the persons API has none of these. */
const TOTAL_FIELDS = ['total_sessions', 'total_page_views', 'total_events', 'last_seen_at'] as const

function scopedId(ctx: HandlerContext, record: UnifiedRecord, projectId: string): UnifiedRecord {
  if (typeof record.id !== 'string') return record
  return { ...record, id: scopedVisitorId(ctx, projectId, record.id) }
}

/**
 * The project and the person of a unified visitor id: `<project_id>:<id>` names a person of that project
 * (a default-project distinct id that merely looks scoped is still found), anything else one of the default
 * project. 404 when no person has that id.
 */
async function locatePerson(
  ctx: HandlerContext,
  id: string,
): Promise<{ projectId: string; person: PosthogPerson }> {
  const fallback = projectIdOf(ctx)
  const scoped = /^(\d+):(.+)$/s.exec(id)
  if (scoped && scoped[1] !== fallback) {
    const projectId = scoped[1] as string
    const person = await lookupPerson(ctx, projectId, scoped[2] as string)
    if (person) return { projectId, person }
  }
  const person = await lookupPerson(ctx, fallback, id)
  if (!person) throw notFoundAtPosthog()
  return { projectId: fallback, person }
}

/** The slow totals for a page of persons, in one grouped query; a person without events has zeros. */
async function totalsOf(
  ctx: HandlerContext,
  projectId: string,
  persons: readonly PosthogPerson[],
): Promise<Map<string, VisitorTotals> | undefined> {
  if (!TOTAL_FIELDS.some((f) => ctx.fields.slow.has(f)) || persons.length === 0) return undefined
  const res = await runHogQL(
    ctx,
    projectId,
    visitorTotalsQuery(persons.map((p) => p.uuid)),
    'unigate visitor totals',
    persons.length,
  )
  const totals = new Map<string, VisitorTotals>()
  for (const [personId, sessions, pageViews, events, lastSeen] of res.results) {
    const last = typeof lastSeen === 'string' ? new Date(lastSeen) : undefined
    totals.set(String(personId), {
      total_sessions: Number(sessions),
      total_page_views: Number(pageViews),
      total_events: Number(events),
      ...(last && !Number.isNaN(last.getTime()) ? { last_seen_at: last } : {}),
    })
  }
  for (const p of persons)
    if (!totals.has(p.uuid)) totals.set(p.uuid, { total_sessions: 0, total_page_views: 0, total_events: 0 })
  return totals
}

/** `raw.<name>` reads `raw[name]`: expose each named person property at the top of the record. */
function exposeRawNames(ctx: HandlerContext, person: PosthogPerson): PosthogPerson {
  const out: Record<string, unknown> = { ...person }
  for (const name of ctx.fields.rawNames) {
    if (!(name in out) && person.properties?.[name] !== undefined) out[name] = person.properties[name]
  }
  return out as PosthogPerson
}

async function toVisitors(ctx: HandlerContext, projectId: string, persons: readonly PosthogPerson[]) {
  const totals = await totalsOf(ctx, projectId, persons)
  return persons.map((p) =>
    scopedId(ctx, fromPosthogPerson(exposeRawNames(ctx, p), projectId, totals?.get(p.uuid)), projectId),
  )
}

async function listVisitors(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const projectId = projectIdOf(ctx, query.filters.property_id)
  const page = await ctx.client.json<PosthogPage<PosthogPerson>>({
    path: personsPath(projectId),
    query: restQuery(ctx, { limit: query.limit, offset: query.offset, search: query.query }),
  })
  return toVisitors(ctx, projectId, page.results)
}

async function getVisitor(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const { projectId, person } = await locatePerson(ctx, id)
  const [visitor] = await toVisitors(ctx, projectId, [person])
  return visitor as UnifiedRecord
}

/**
 * PostHog has no REST create for persons: an `$identify` capture creates one. The distinct id is
 * `raw.distinct_id` or a new UUID. Capture answers no id, so the visitor id is the person the distinct id
 * already has, else the uuid PostHog derives for the person it creates (`personUuidOf`, from the id of the
 * team the capture key belongs to).
 */
async function createVisitor(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const projectId = projectIdOf(ctx, body.property_id)
  const raw = body.raw && typeof body.raw === 'object' ? (body.raw as Record<string, unknown>) : {}
  const given = typeof raw.distinct_id === 'string' && raw.distinct_id !== '' ? raw.distinct_id : undefined
  const distinctId = given ?? randomUUID()
  const existing = given === undefined ? undefined : await personWithDistinctId(ctx, projectId, given)
  const team = await captureTeam(ctx, projectId)
  const payload = toPosthogIdentify(toPosthogPersonProperties(body), {
    uuid: randomUUID(),
    apiKey: team.apiKey,
    distinctId,
    timestamp: new Date().toISOString(),
  })
  await capture(ctx, payload)
  const personUuid = existing?.uuid ?? personUuidOf(team.teamId, distinctId)
  return scopedId(ctx, fromPosthogIdentify(payload, projectId, personUuid), projectId)
}

/**
 * PostHog applies person property writes as a `$set` (it answers 202 and no body), so the answer is the
 * person read before the write with the new properties merged in. PostHog cannot drop properties this way,
 * so PUT and PATCH both only set what the body carries.
 */
async function writeVisitor(ctx: HandlerContext, method: 'PUT' | 'PATCH', id: string, body: WriteBody) {
  const { projectId, person } = await locatePerson(ctx, id)
  const properties = toPosthogPersonProperties(body)
  await ctx.client.send({
    method,
    path: `${personsPath(projectId)}${person.uuid}/`,
    query: restQuery(ctx),
    body: { properties },
  })
  const record = fromPosthogPerson(
    exposeRawNames(ctx, { ...person, properties: { ...person.properties, ...properties } }),
    projectId,
  )
  return scopedId(ctx, record, projectId)
}

export const visitorHandlers: ObjectHandlers = {
  rawOwned: { ...REST_LIST_OWNED, ...HOGQL_OWNED, ...PERSON_LOOKUP_OWNED },
  list: listVisitors,
  checkList: checkPropertyFilter,
  get: getVisitor,
  create: createVisitor,
  update: (ctx, id, body) => writeVisitor(ctx, 'PUT', id, body),
  patch: (ctx, id, body) => writeVisitor(ctx, 'PATCH', id, body),
  remove: async (ctx, id) => {
    const { projectId, person } = await locatePerson(ctx, id)
    await ctx.client.send({
      method: 'DELETE',
      path: `${personsPath(projectId)}${person.uuid}/`,
      query: restQuery(ctx),
    })
  },
  listParams: ['query'],
  filters: ['property_id'],
  slowFields: TOTAL_FIELDS,
}

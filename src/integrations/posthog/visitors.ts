import { randomUUID } from 'node:crypto'
import { ProviderError } from '../../errors.js'
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
import { capture, notFoundAtPosthog, projectApiKey, projectIdOf, restQuery, runHogQL } from './requests.js'
import type { PosthogPage, PosthogPerson } from './types.js'
import { sinceEarliest } from './windows.js'

// Visitors are PostHog persons; `fromPosthogPerson` says why the visitor id is a distinct id.

/** From the person's events (one grouped query per page); the persons API has none of these. */
const TOTAL_FIELDS = ['total_sessions', 'total_page_views', 'total_events', 'last_seen_at'] as const
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const personsPath = (projectId: string) => `/api/projects/${projectId}/persons/`

/** The person with this distinct id; a person uuid or numeric id (`raw.__id`, `raw.id`) is accepted too. */
async function findPerson(ctx: HandlerContext, projectId: string, id: string): Promise<PosthogPerson> {
  const page = await ctx.client.json<PosthogPage<PosthogPerson>>({
    path: personsPath(projectId),
    query: restQuery(ctx, { distinct_id: id }),
  })
  const found = page.results[0]
  if (found) return found
  if (UUID.test(id) || /^\d+$/.test(id)) {
    return ctx.client.json<PosthogPerson>({ path: `${personsPath(projectId)}${id}/`, query: restQuery(ctx) })
  }
  throw notFoundAtPosthog()
}

/**
 * A visitor's id names its person within one project, so a person outside the connection's default project
 * carries the project in its unified id: `<project_id>:<distinct_id>` (default-project ids stay the bare
 * distinct id). Get, update and remove read it back, so every id a list or create answers round-trips.
 */
function scopedId(ctx: HandlerContext, record: UnifiedRecord, projectId: string): UnifiedRecord {
  if (projectId === ctx.settings.project_id || typeof record.id !== 'string') return record
  return { ...record, id: `${projectId}:${record.id}` }
}

/** The project and the person of a unified visitor id (see `scopedId`). */
async function locatePerson(
  ctx: HandlerContext,
  id: string,
): Promise<{ projectId: string; person: PosthogPerson }> {
  const fallback = projectIdOf(ctx)
  const scoped = /^(\d+):(.+)$/s.exec(id)
  if (scoped && scoped[1] !== fallback) {
    const projectId = scoped[1] as string
    try {
      return { projectId, person: await findPerson(ctx, projectId, scoped[2] as string) }
    } catch (err) {
      // A default-project distinct id that merely looks scoped is still found below.
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
  }
  return { projectId: fallback, person: await findPerson(ctx, fallback, id) }
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
    visitorTotalsQuery(
      persons.map((p) => p.uuid),
      sinceEarliest(persons.map((p) => p.created_at)),
    ),
    'unigate visitor totals',
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

/** PostHog has no REST create for persons: an `$identify` capture creates one. The distinct id is `raw.distinct_id` or a new UUID. */
async function createVisitor(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const projectId = projectIdOf(ctx, body.property_id)
  const raw = body.raw && typeof body.raw === 'object' ? (body.raw as Record<string, unknown>) : {}
  const distinctId =
    typeof raw.distinct_id === 'string' && raw.distinct_id !== '' ? raw.distinct_id : randomUUID()
  const payload = toPosthogIdentify(toPosthogPersonProperties(body), {
    uuid: randomUUID(),
    apiKey: await projectApiKey(ctx, projectId),
    distinctId,
    timestamp: new Date().toISOString(),
  })
  await capture(ctx, payload)
  return scopedId(ctx, fromPosthogIdentify(payload, projectId), projectId)
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
  list: listVisitors,
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

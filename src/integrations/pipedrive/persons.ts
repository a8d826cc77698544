import { ApiError, badRequest, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { fromPipedrivePerson, toPipedrivePerson } from './mappers.js'
import type { PipedriveEnvelope, PipedrivePerson } from './types.js'

const PERSONS = '/api/v2/persons'
/** A person id is a whole number; any other id names no person, so nothing is asked of Pipedrive. */
function personPath(id: string): string {
  if (!/^\d+$/.test(id))
    throw new ApiError(404, `contact '${id}' not found: Pipedrive person ids are whole numbers`)
  return `${PERSONS}/${id}`
}

/** v2 lists take `limit` up to 500 (client-nodejs v2 persons-api.ts, getPersons `limit`). */
const MAX_PAGE = 500

/** Unified sort fields onto `sort_by` (`id`, `update_time`, `add_time`: getPersons). */
export const SORT_BY: Readonly<Record<string, string>> = {
  id: 'id',
  created_at: 'add_time',
  updated_at: 'update_time',
}

/** Pipedrive ids are whole numbers: anything else could never match, so it is refused naming the filter. */
function idFilter(name: string, value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined
  const s = String(value)
  if (!/^\d+$/.test(s)) {
    throw badRequest(`${name}: '${s}' is not a Pipedrive id; Pipedrive ids are whole numbers`)
  }
  return s
}

/**
 * The list query: `owner_id`, `org_id`, `deal_id`, `updated_since` (RFC 3339, inclusive), `sort_by` and
 * `sort_direction` (getPersons in client-nodejs v2 persons-api.ts).
 */
function listParams(q: ListQuery): Record<string, string | undefined> {
  return {
    owner_id: idFilter('user_id', q.filters.user_id),
    org_id: idFilter('company_id', q.filters.company_id),
    deal_id: idFilter('deal_id', q.filters.deal_id),
    updated_since: q.updated_gte ? q.updated_gte.toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined,
    sort_by: q.sort ? SORT_BY[q.sort] : undefined,
    sort_direction: q.order,
  }
}

/**
 * Pages with `cursor` and `additional_data.next_cursor` (null at the end). The cursor of each page end is
 * remembered, so the next unified page costs one call.
 */
async function listPersons(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const params = listParams(q)
  const defined = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
  const scope = `${ctx.connectionId}|pipedrive-persons|${new URLSearchParams({ ...defined, ...ctx.rawParams })}`
  const start = ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const rows: PipedrivePerson[] = []
  let position = start.offset
  let cursor = start.cursor
  while (position < end) {
    const size = Math.min(MAX_PAGE, position < q.offset ? q.offset - position : end - position)
    const page = await ctx.client.json<PipedriveEnvelope<PipedrivePerson[] | null>>({
      path: PERSONS,
      query: { ...params, limit: size, cursor, ...ctx.rawParams },
    })
    const data = page.data ?? []
    data.forEach((p, i) => {
      if (position + i >= q.offset && position + i < end) rows.push(p)
    })
    position += data.length
    cursor = page.additional_data?.next_cursor ?? undefined
    if (!cursor || data.length === 0) break
    ctx.cursors.set(scope, position, cursor)
  }
  return rows.map(fromPipedrivePerson)
}

/**
 * A deleted person stays readable for 30 days, marked `is_deleted` (DELETE /persons/{id}: "marked as
 * deleted. After 30 days, the person will be permanently deleted"): for the unified API it is gone.
 */
async function readPerson(ctx: HandlerContext, id: string): Promise<PipedrivePerson> {
  const res = await ctx.client.json<PipedriveEnvelope<PipedrivePerson>>({
    path: personPath(id),
    query: { ...ctx.rawParams },
  })
  if (res.data.is_deleted) throw new ProviderError(404, `person ${id} is deleted`)
  return res.data
}

async function writePerson(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord> {
  const res = await ctx.client.json<PipedriveEnvelope<PipedrivePerson>>({
    method: 'PATCH',
    path: personPath(id),
    body: toPipedrivePerson(body, false),
    // Setting the same values twice leaves the same person.
    idempotent: true,
  })
  return fromPipedrivePerson(res.data)
}

export const personHandlers: ObjectHandlers = {
  // Listing without filters answers every person not deleted, so virtual webhooks can tell deletions.
  listIsComplete: true,
  // Times are whole seconds, so `updated_since` is the start of a second: a change in the second a check
  // started lists again at the next one. Virtual webhooks read that second back and skip what they sent.
  updatedGteLagMs: 1000,
  listParams: ['updated_gte', 'sort', 'order'],
  filters: ['company_id', 'deal_id', 'user_id'],
  sortFields: Object.keys(SORT_BY),

  list: listPersons,

  async get(ctx, id) {
    return fromPipedrivePerson(await readPerson(ctx, id))
  },

  async create(ctx, body) {
    const res = await ctx.client.json<PipedriveEnvelope<PipedrivePerson>>({
      method: 'POST',
      path: PERSONS,
      body: toPipedrivePerson(body, true),
    })
    return fromPipedrivePerson(res.data)
  },

  // v2 updates with PATCH and only the fields sent: PUT and PATCH are the same call.
  update: writePerson,
  patch: writePerson,

  async remove(ctx, id) {
    await ctx.client.json({ method: 'DELETE', path: personPath(id) })
  },
}

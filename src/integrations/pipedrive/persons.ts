import { ApiError, badRequest, notImplemented, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { fromPipedrivePerson, toPipedrivePerson } from './mappers.js'
import { pipedrivePersonPushes } from './native-webhooks.js'
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
 * `raw` parameters the connector sets itself: a raw `limit` or `cursor` would replace the paging (the same
 * page read again and again), a raw `ids` would replace the found persons, and the unified filters have
 * their own names. Refused, naming the parameter, rather than letting one silently win.
 */
const OWNED_RAW: Readonly<Record<string, string>> = {
  limit: 'Unigate pages with limit and offset',
  cursor: 'Unigate pages with limit and offset',
  ids: 'read persons by id with GET /crm/{connection}/contact/{id}',
  owner_id: 'use the user_id filter',
  org_id: 'use the company_id filter',
  organization_id: 'use the company_id filter',
  deal_id: 'use the deal_id filter',
  updated_since: 'use updated_gte',
  sort_by: 'use sort',
  sort_direction: 'use order',
  term: 'use query',
}

/**
 * `filter_id` makes Pipedrive ignore `ids`, `owner_id`, `org_id` and `deal_id` (getPersons in client-nodejs
 * v2 persons-api.ts: "If filter_id is provided, this is ignored"), so it is refused with a unified filter
 * or `query` (whose persons are read by `ids`) instead of answering persons those did not choose.
 */
function checkedRaw(ctx: HandlerContext, q: ListQuery): Record<string, string> {
  if (ctx.rawParams.filter_id !== undefined) {
    const unified = ['user_id', 'company_id', 'deal_id'].filter((f) => q.filters[f] !== undefined)
    if (q.query !== undefined) unified.push('query')
    if (unified.length > 0) {
      throw badRequest(
        `raw: Pipedrive ignores ${unified.join(', ')} when filter_id is given; send one or the other`,
      )
    }
  }
  return ctx.rawParams
}

/**
 * `updated_gte` as `updated_since`, whole seconds as Pipedrive keeps `update_time`: rounded up, so that a
 * person changed earlier within the second of a sub-second value is left out, as `updated_gte` promises
 * (rounded down, Pipedrive answered it).
 */
function updatedSince(at: Date): string {
  const second = Math.ceil(at.getTime() / 1000) * 1000
  return new Date(second).toISOString().replace(/\.\d{3}Z$/, 'Z')
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
    updated_since: q.updated_gte ? updatedSince(q.updated_gte) : undefined,
    sort_by: q.sort ? SORT_BY[q.sort] : undefined,
    sort_direction: q.order,
  }
}

/** The found persons are read in ids lists of at most 100 (getPersons `ids`: "up to 100 entity ids"). */
const MAX_IDS = 100

/**
 * Search pages take `limit` up to 500 (client-nodejs v2 persons-api.ts, searchPersons `limit`), and searches
 * have their own burst limit, 10 per 2 seconds on every plan (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting,
 * "Limits"): the walk to a far offset reads the largest pages, so it meets that limit as late as it can.
 */
const MAX_SEARCH_PAGE = 500

/**
 * Search narrowed by `organization_id` finds at most 2000 persons (client-nodejs v2 persons-api.ts,
 * searchPersons `organization_id`: "The upper limit of found persons associated with the organization is
 * 2000"): a page reaching past them is refused, not answered short.
 */
const ORG_SEARCH_CAP = 2000

function orgSearchCapError(q: ListQuery): ApiError {
  return badRequest(
    `offset: Pipedrive's person search narrowed by an organization finds at most ${ORG_SEARCH_CAP} persons, ` +
      `and this page (offset ${q.offset}, limit ${q.limit}) reaches past them; use a narrower query, or ` +
      'list with company_id alone, which has no cap',
  )
}

type SearchPage = PipedriveEnvelope<{ items?: { item?: { id?: number } }[] } | null>

/**
 * What a person search takes, or what it refuses (known from the query alone): the organization it is
 * narrowed by, if any.
 */
function searchOrg(q: ListQuery, term: string): string | undefined {
  const other = ['user_id', 'deal_id'].filter((f) => q.filters[f] !== undefined)
  if (q.updated_gte) other.push('updated_gte')
  if (q.sort || q.order) other.push(q.sort ? 'sort' : 'order')
  if (other.length > 0) {
    throw notImplemented(
      `Pipedrive (pipedrive) cannot apply ${other.join(', ')} together with query: its person search filters by organization only`,
    )
  }
  if (term.trim().length < 2) throw badRequest('query: Pipedrive searches for at least 2 characters')
  return idFilter('company_id', q.filters.company_id)
}

/**
 * `query` searches persons (`GET /api/v2/persons/search`, relevance order; `organization_id` is its only
 * filter), then reads the found persons whole with `GET /api/v2/persons?ids=`, one call per 100 found. Search
 * takes at least 2 characters; other filters, `updated_gte` and `sort` cannot narrow it (501).
 */
async function searchPersons(
  ctx: HandlerContext,
  q: ListQuery,
  term: string,
  raw: Record<string, string>,
): Promise<UnifiedRecord[]> {
  const org = searchOrg(q, term)
  const scope = `${ctx.connectionId}|pipedrive-search|${new URLSearchParams({ term, ...(org ? { org } : {}) })}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const ids: number[] = []
  let position = start.offset
  let cursor = start.cursor
  while (position < end) {
    const size = Math.min(MAX_SEARCH_PAGE, position < q.offset ? q.offset - position : end - position)
    const page = await ctx.client.json<SearchPage>({
      path: `${PERSONS}/search`,
      query: { term, organization_id: org, limit: size, cursor },
    })
    const found = (page.data?.items ?? [])
      .map((i) => i.item?.id)
      .filter((id): id is number => typeof id === 'number')
    found.forEach((id, i) => {
      if (position + i >= q.offset && position + i < end) ids.push(id)
    })
    position += found.length
    cursor = page.additional_data?.next_cursor ?? undefined
    if (!cursor || found.length === 0) {
      // The end of a search narrowed by organization at its cap is not the end of the matches.
      if (org && position >= ORG_SEARCH_CAP && position < end) throw orgSearchCapError(q)
      break
    }
    ctx.cursors.set(scope, position, cursor)
  }
  const persons = new Map<number, PipedrivePerson>()
  for (let i = 0; i < ids.length; i += MAX_IDS) {
    const chunk = ids.slice(i, i + MAX_IDS)
    const res = await ctx.client.json<PipedriveEnvelope<PipedrivePerson[] | null>>({
      path: PERSONS,
      query: { ...raw, ids: chunk.join(','), limit: chunk.length },
    })
    for (const p of res.data ?? []) persons.set(p.id, p)
  }
  // In search order; a person deleted between the two calls is left out.
  return ids.flatMap((id) => {
    const p = persons.get(id)
    return p ? [fromPipedrivePerson(p)] : []
  })
}

/**
 * Pages with `cursor` and `additional_data.next_cursor` (null at the end). The cursor of each page end is
 * remembered, so the next unified page costs one call.
 */
async function listPersons(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const raw = checkedRaw(ctx, q)
  if (q.query !== undefined) return searchPersons(ctx, q, q.query, raw)
  const params = listParams(q)
  const defined = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
  const scope = `${ctx.connectionId}|pipedrive-persons|${new URLSearchParams({ ...raw, ...defined })}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const rows: PipedrivePerson[] = []
  let position = start.offset
  let cursor = start.cursor
  while (position < end) {
    const size = Math.min(MAX_PAGE, position < q.offset ? q.offset - position : end - position)
    const page = await ctx.client.json<PipedriveEnvelope<PipedrivePerson[] | null>>({
      path: PERSONS,
      query: { ...raw, ...params, limit: size, cursor },
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
  rawOwned: OWNED_RAW,
  // Listing without filters answers every person not deleted, so virtual webhooks can tell deletions.
  listIsComplete: true,
  // Times are whole seconds, so `updated_since` is the start of a second: a change in the second a check
  // started lists again at the next one. Virtual webhooks read that second back and skip what they sent.
  updatedGteLagMs: 1000,
  listParams: ['updated_gte', 'sort', 'order', 'query'],
  filters: ['company_id', 'deal_id', 'user_id'],
  sortFields: Object.keys(SORT_BY),
  nativeWebhooks: pipedrivePersonPushes,
  // The filters a list sends and what a search refuses, so that a webhook whose checks could not list is
  // refused when it is made. The raw filter_id rule needs the raw parameters, which a webhook does not take.
  checkList: (q) => void (q.query !== undefined ? searchOrg(q, q.query) : listParams(q)),

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

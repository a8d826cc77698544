import { shapedPage } from '../../engine/fields.js'
import { ApiError, badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { joinNames, rawListParam } from '../raw-lists.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { completeAssociations } from './associations.js'
import {
  fromHubspotContact,
  hubspotContactMapperFor,
  shapedContactMapperFor,
  toHubspotAssociations,
  toHubspotContactProperties,
} from './mappers.js'
import { type ContactAsk, contactAsk, SORT_PROPERTIES } from './properties.js'
import {
  isHubspotId,
  MAX_SEARCH_PAGE,
  needsSearch,
  pagesById,
  SEARCH_RESULT_CAP,
  searchRequest,
} from './search.js'
import { paceSearch, searchPaceKey } from './search-pace.js'
import type { HubspotContact, HubspotPage, HubspotSearchPage } from './types.js'

const CONTACTS = '/crm/v3/objects/contacts'
const contactPath = (id: string) => `${CONTACTS}/${encodeURIComponent(id)}`

/** The plain list's largest page (https://developers.hubspot.com/docs/api-reference/crm-contacts-v3, `limit` up to 100). */
const MAX_LIST_PAGE = 100

const askOf = (ctx: HandlerContext): ContactAsk => contactAsk(ctx.fields.listed, ctx.fields.rawNames)

/**
 * The raw parameters, with raw `properties` and `associations` (comma-joined lists) taken apart. HubSpot answers
 * only the properties and association types named (contacts spec, `GET /crm/v3/objects/contacts`, parameters
 * `properties` and `associations`), so raw lists add to the ones the fields need (`raw` is "added to the
 * provider request", spec 4.1): replacing them left every unified field they feed empty, without a word.
 */
function rawAsk(raw: Readonly<Record<string, string>>) {
  const properties = rawListParam(raw, 'properties')
  const associations = rawListParam(properties.rest, 'associations')
  return { properties: properties.names, associations: associations.names, rest: associations.rest }
}

/** The query of the list and read endpoints: the raw parameters, `properties=a,b` and `associations=companies,deals`. */
function readQuery(ask: ContactAsk, raw: Readonly<Record<string, string>>): Record<string, string> {
  const extra = rawAsk(raw)
  const properties = joinNames(ask.properties, extra.properties)
  const associations = joinNames(ask.associations, extra.associations)
  return {
    ...extra.rest,
    ...(properties.length > 0 ? { properties: properties.join(',') } : {}),
    ...(associations.length > 0 ? { associations: associations.join(',') } : {}),
  }
}

/**
 * A page of contacts, each built with only the fields the caller listed (see hubspotContactMapperFor); when
 * `fields` lists no `raw`, built as the response sends them (shapedContactMapperFor).
 */
function mapAll(ctx: HandlerContext, rows: readonly HubspotContact[]): UnifiedRecord[] {
  const { listed, raw, rawNames } = ctx.fields
  if (listed && !raw && rawNames.length === 0) return shapedPage(rows.map(shapedContactMapperFor(listed)))
  return rows.map(hubspotContactMapperFor(listed, rawNames))
}

/**
 * The plain list pages with an opaque `after` cursor (`paging.next.after`). The cursor for a position is
 * remembered at the end of every page read, so reading the next unified page costs one call.
 */
async function listPlain(ctx: HandlerContext, q: ListQuery, ask: ContactAsk): Promise<UnifiedRecord[]> {
  const params = readQuery(ask, ctx.rawParams)
  const scope = `${ctx.connectionId}|hubspot-contacts|${new URLSearchParams(params)}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const rows: HubspotContact[] = []
  let position = start.offset
  let after = start.cursor
  while (position < end) {
    const size = Math.min(MAX_LIST_PAGE, position < q.offset ? q.offset - position : end - position)
    const page = await ctx.client.json<HubspotPage>({
      path: CONTACTS,
      query: { limit: size, after, ...params },
    })
    page.results.forEach((c, i) => {
      if (position + i >= q.offset && position + i < end) rows.push(c)
    })
    position += page.results.length
    after = page.paging?.next?.after
    if (!after || page.results.length === 0) break
    ctx.cursors.set(scope, position, after)
  }
  return mapAll(ctx, await completeAssociations(ctx, rows, ask.associations, 'paged'))
}

/**
 * A filtered, sorted or searched list goes through the search endpoint, which answers at most 10,000
 * results per query. In id order each page is a search of its own, bounded by the last id read (see
 * `pagesById`), so the list goes on past 10,000; with a caller's sort a page past the cap is refused
 * naming it, never cut short silently. The remembered cursor for a position is that last id, or the
 * `after` offset with a sort.
 */
async function listSearched(ctx: HandlerContext, q: ListQuery, ask: ContactAsk): Promise<UnifiedRecord[]> {
  checkSearched(q)
  const capped = !pagesById(q)
  // Search takes its properties in the body; raw ones join them there.
  const raw = rawAsk(ctx.rawParams)
  const properties = joinNames(ask.properties, raw.properties)
  const scope = `${ctx.connectionId}|hubspot-search|${JSON.stringify(searchRequest(q, properties, 0, undefined))}|${new URLSearchParams(raw.rest)}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const rows: HubspotContact[] = []
  const paceKey = searchPaceKey(ctx.connectionId, ctx.client.baseUrl, ctx.settings)
  let position = start.offset
  let cursor = start.cursor
  while (position < end) {
    const wanted = Math.min(MAX_SEARCH_PAGE, position < q.offset ? q.offset - position : end - position)
    const size = capped ? Math.min(wanted, SEARCH_RESULT_CAP - position) : wanted
    if (size <= 0) throw searchCapError(q)
    const page = await ctx.client.json<HubspotSearchPage>({
      method: 'POST',
      path: `${CONTACTS}/search`,
      body: searchRequest(q, properties, size, cursor),
      query: { ...raw.rest },
      // A search only reads.
      idempotent: true,
      pace: () => paceSearch(paceKey, ctx.client.options.transport.limiter.limits.queue),
    })
    page.results.forEach((c, i) => {
      if (position + i >= q.offset && position + i < end) rows.push(c)
    })
    position += page.results.length
    const last = page.results.at(-1)
    // `paging.next` says more remain; in id order the next page starts past the last id read.
    cursor = page.paging?.next?.after === undefined ? undefined : capped ? page.paging.next.after : last?.id
    if (!cursor || page.results.length === 0) break
    if (capped && position >= SEARCH_RESULT_CAP && position < end) throw searchCapError(q)
    ctx.cursors.set(scope, position, cursor)
  }
  return mapAll(ctx, await completeAssociations(ctx, rows, ask.associations, 'all'))
}

/**
 * What of a searched list HubSpot would refuse, known from the query alone: a sorted page at or past the
 * search cap, and what `searchRequest` refuses (a filter id that is no number, a text query too long).
 */
function checkSearched(q: ListQuery): void {
  // No page of a capped search starts at or past the cap: refused before any call.
  if (!pagesById(q) && q.offset >= SEARCH_RESULT_CAP) throw searchCapError(q)
  searchRequest(q, [], 1, undefined)
}

function searchCapError(q: ListQuery): ApiError {
  return badRequest(
    `offset: HubSpot's search answers at most ${SEARCH_RESULT_CAP} contacts per query, and this sorted page ` +
      `(offset ${q.offset}, limit ${q.limit}) reaches past them; narrow the query (a later updated_gte, ` +
      'a user_id, company_id or deal_id), or leave out sort: lists in id order go past the cap',
  )
}

/** HubSpot refuses a second contact with an email it holds with 409, naming the existing id. */
async function conflictAware<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (err) {
    if (err instanceof ProviderError && err.status === 409) {
      throw new ApiError(
        409,
        `HubSpot refused the contact: ${err.providerMessage}`,
        {},
        { provider_status: 409 },
      )
    }
    throw err
  }
}

function refuseAssociationsOnUpdate(body: WriteBody): void {
  for (const field of ['company_ids', 'deal_ids']) {
    if (body[field] !== undefined) {
      throw badRequest(
        `${field}: HubSpot changes a contact's associations only through its associations API, not an ` +
          'update; set them at creation, or use passthrough (/crm/v4/objects/contacts/{id}/associations/...)',
      )
    }
  }
}

async function updateContact(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord> {
  refuseAssociationsOnUpdate(body)
  const properties = toHubspotContactProperties(body)
  const updated = await conflictAware(() =>
    ctx.client.json<HubspotContact>({
      method: 'PATCH',
      path: contactPath(id),
      body: { properties },
      // Setting the same values twice leaves the same contact.
      idempotent: true,
    }),
  )
  return fromHubspotContact(updated)
}

export const contactHandlers: ObjectHandlers = {
  // The plain list answers every contact that is not archived, so virtual webhooks can tell deletions.
  listIsComplete: true,
  // Search lists a write "a few moments" after it (search guide, "Limitations"): a minute covers it.
  updatedGteLagMs: 60_000,
  listParams: ['updated_gte', 'sort', 'order', 'query'],
  filters: ['company_id', 'deal_id', 'user_id'],
  rawOwned: { after: 'Unigate pages with limit and offset', limit: 'Unigate pages with limit and offset' },
  sortFields: Object.keys(SORT_PROPERTIES),
  checkList: (q) => {
    if (needsSearch(q)) checkSearched(q)
  },

  async list(ctx, q) {
    const ask = askOf(ctx)
    return needsSearch(q) ? listSearched(ctx, q, ask) : listPlain(ctx, q, ask)
  },

  async get(ctx, id) {
    const ask = askOf(ctx)
    const contact = await ctx.client.json<HubspotContact>({
      path: contactPath(id),
      query: readQuery(ask, ctx.rawParams),
    })
    const [complete] = await completeAssociations(ctx, [contact], ask.associations, 'paged')
    return fromHubspotContact(complete ?? contact, ctx.fields.rawNames)
  },

  async create(ctx, body) {
    const properties = toHubspotContactProperties(body)
    const created = await conflictAware(() =>
      ctx.client.json<HubspotContact>({
        method: 'POST',
        path: CONTACTS,
        body: { properties, associations: toHubspotAssociations(body) },
      }),
    )
    // HubSpot's answer to a create carries no associations (SimplePublicObject), though the create made
    // them, all or none: the answer names those it was asked for, as a read of the contact would.
    const record = fromHubspotContact(created)
    for (const field of ['company_ids', 'deal_ids'] as const) {
      const ids = body[field] as string[] | undefined
      if (ids !== undefined && ids.length > 0) record[field] = [...new Set(ids)]
    }
    return record
  },

  // HubSpot updates with PATCH and only the properties sent: PUT and PATCH are the same call.
  update: updateContact,
  patch: updateContact,

  // Archiving: HubSpot keeps an archived contact restorable for 90 days; it no longer lists or reads it.
  // HubSpot's archive answers 204 for any id, one it never held too (emulators/hubspot/routes/contacts.ts),
  // so a remove cannot tell a missing contact; an id that is no HubSpot id names none, and is a 404 as a
  // read of it is, without a call.
  async remove(ctx, id) {
    if (!isHubspotId(id))
      throw notFound(`HubSpot has no contact ${JSON.stringify(id)}: its contact ids are numbers`)
    await ctx.client.json({ method: 'DELETE', path: contactPath(id) })
  },
}

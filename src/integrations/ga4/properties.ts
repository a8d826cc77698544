import { badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { readTokenWindow } from '../google/token-pages.js'
import { tooManyPages } from '../page-bound.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { ga4AdminBase } from './hosts.js'
import {
  fromGa4Property,
  toGa4Parent,
  toGa4PropertyCreate,
  toGa4PropertyName,
  toGa4PropertyUpdate,
} from './mappers.js'
import type { Ga4AccountSummaryList, Ga4Property, Ga4PropertyList } from './provider-types.js'

/** The Admin API's largest page (larger sizes are coerced to it); a fixed size keeps page tokens reusable. */
const ADMIN_PAGE_SIZE = 200

function listPage(ctx: HandlerContext, filter: string) {
  return async (pageToken: string | undefined) => {
    const res = await ctx.client.json<Ga4PropertyList>({
      baseUrl: ga4AdminBase(ctx.credentials),
      path: '/v1beta/properties',
      query: { ...ctx.rawParams, filter, pageSize: ADMIN_PAGE_SIZE, pageToken },
    })
    return { items: res.properties ?? [], nextPageToken: res.nextPageToken }
  }
}

function readFiltered(ctx: HandlerContext, filter: string, offset: number, limit: number) {
  const extra = new URLSearchParams(ctx.rawParams).toString()
  return readTokenWindow<Ga4Property>({
    cursors: ctx.cursors,
    scope: `${ctx.connectionId}:ga4:properties:${filter}:${extra}`,
    offset,
    limit,
    fetchPage: listPage(ctx, filter),
  })
}

/** Pages of account summaries read at most (10,000 accounts); more is a 502 naming the cap (page-bound.ts). */
const MAX_ACCOUNT_PAGES = 50

/** Every account the token can see, with how many properties each holds (one call per 200 accounts). */
async function accountSizes(ctx: HandlerContext): Promise<{ account: string; count: number }[]> {
  const out: { account: string; count: number }[] = []
  let pageToken: string | undefined
  let pages = 0
  do {
    if (pages++ === MAX_ACCOUNT_PAGES)
      throw tooManyPages('Google Analytics', 'accounts', MAX_ACCOUNT_PAGES * ADMIN_PAGE_SIZE)
    const res = await ctx.client.json<Ga4AccountSummaryList>({
      baseUrl: ga4AdminBase(ctx.credentials),
      path: '/v1beta/accountSummaries',
      query: { pageSize: ADMIN_PAGE_SIZE, pageToken },
    })
    for (const a of res.accountSummaries ?? []) {
      out.push({ account: a.account, count: a.propertySummaries?.length ?? 0 })
    }
    pageToken = res.nextPageToken || undefined
  } while (pageToken)
  return out
}

/**
 * GA4 lists properties only under a parent (`filter` is required). With `parent_id` that is one listing;
 * without it, the account summaries say how many properties each account holds, so only the accounts
 * the requested window falls into are listed (`ancestor:` includes sub-properties, as the summaries do).
 */
/** The Admin API `parent` a `parent_id` filter names, if any (a 400 for one that names no account). */
function parentAsked(query: ListQuery): string | undefined {
  const parentId = query.filters.parent_id
  return typeof parentId === 'string' ? toGa4Parent(parentId) : undefined
}

async function listProperties(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const parent = parentAsked(query)
  if (parent !== undefined) {
    const rows = await readFiltered(ctx, `parent:${parent}`, query.offset, query.limit)
    return rows.map(fromGa4Property)
  }
  const out: Ga4Property[] = []
  let start = 0
  const end = query.offset + query.limit
  for (const { account, count } of await accountSizes(ctx)) {
    const from = Math.max(query.offset, start)
    const to = Math.min(end, start + count)
    if (from < to) out.push(...(await readFiltered(ctx, `ancestor:${account}`, from - start, to - from)))
    start += count
    if (start >= end) break
  }
  return out.map(fromGa4Property)
}

/** One property; `raw` is the caller's raw parameters when this read is the operation, none when it only checks. */
async function fetchProperty(
  ctx: HandlerContext,
  id: string,
  raw: Readonly<Record<string, string>> = ctx.rawParams,
): Promise<Ga4Property> {
  const p = await ctx.client.json<Ga4Property>({
    baseUrl: ga4AdminBase(ctx.credentials),
    path: `/v1beta/${toGa4PropertyName(id)}`,
    query: raw,
  })
  // A deleted property stays readable in GA4's trash for 35 days; for the caller it is gone.
  if (p.deleteTime) throw notFound(`GA4 property ${id} is in the trash (deleted ${p.deleteTime})`)
  return p
}

/** The raw parameters go to the create's query string (Google's system parameters, such as `quotaUser`). */
async function createProperty(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const created = await ctx.client.json<Ga4Property>({
    method: 'POST',
    baseUrl: ga4AdminBase(ctx.credentials),
    path: '/v1beta/properties',
    query: ctx.rawParams,
    body: toGa4PropertyCreate(body),
  })
  return fromGa4Property(created)
}

/**
 * PUT and PATCH both change only the fields sent (GA4's `updateMask`): the SDK sends the whole record on
 * PUT, and clearing a property's name or time zone is not possible at GA4 anyway. The raw parameters go to
 * the patch (beside `updateMask`), not to the read that checks the account: that read is Unigate's own.
 */
async function updateProperty(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord> {
  const name = toGa4PropertyName(id)
  if (typeof body.parent_id === 'string') {
    const current = await fetchProperty(ctx, id, {})
    if (current.parent !== toGa4Parent(body.parent_id)) {
      throw badRequest(
        `parent_id: GA4 cannot move a property to another account (it is in ${current.parent})`,
      )
    }
  }
  const { property, updateMask } = toGa4PropertyUpdate(body)
  if (updateMask.length === 0) return fromGa4Property(await fetchProperty(ctx, id))
  const updated = await ctx.client.json<Ga4Property>({
    method: 'PATCH',
    baseUrl: ga4AdminBase(ctx.credentials),
    path: `/v1beta/${name}`,
    query: { ...ctx.rawParams, updateMask: updateMask.join(',') },
    body: property,
    // Setting the same fields twice leaves the same property: safe to retry.
    idempotent: true,
  })
  return fromGa4Property(updated)
}

async function removeProperty(ctx: HandlerContext, id: string): Promise<void> {
  await ctx.client.send({
    method: 'DELETE',
    baseUrl: ga4AdminBase(ctx.credentials),
    path: `/v1beta/${toGa4PropertyName(id)}`,
  })
}

export const ga4Properties: ObjectHandlers = {
  list: listProperties,
  checkList: (q) => void parentAsked(q),
  get: async (ctx, id) => fromGa4Property(await fetchProperty(ctx, id)),
  create: createProperty,
  update: updateProperty,
  patch: updateProperty,
  remove: removeProperty,
  listParams: [],
  filters: ['parent_id'],
  rawOwned: {
    pageToken: 'Unigate pages with limit and offset',
    pageSize: 'Unigate pages with limit and offset',
    filter: 'use the parent_id filter',
    updateMask: 'Unigate names the fields the body changes',
  },
}

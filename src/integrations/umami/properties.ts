import { notFound } from '../../errors.js'
import type { ProviderClient } from '../http-client.js'
import { tooManyPages } from '../page-bound.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { fromUmamiWebsite, toUmamiWebsite } from './mappers.js'
import type { UmamiPage, UmamiWebsite } from './types.js'
import { onTeam, onWebsite } from './website-access.js'

/** Umami's page size is unbounded; this many websites per call keeps each answer small. */
const WEBSITE_PAGE_SIZE = 100
/** At most this many pages of websites (10,000 websites) are read for one list; more is a 502 (page-bound.ts). */
const MAX_WEBSITE_PAGES = 100

const websitePath = (id: string) => `/websites/${encodeURIComponent(id)}`

type SortKey = (w: UmamiWebsite) => string

const SORT_KEYS: Readonly<Record<string, SortKey>> = {
  name: (w) => w.name,
  created_at: (w) => w.createdAt,
}

/**
 * Every website the key sees. Umami's website list has no order at all: its schema drops `orderBy` and
 * `sortDescending`, and no default survives (umami-software/umami@v3.1.0:src/app/api/websites/route.ts,
 * src/lib/request.ts `getQueryFilters`, src/lib/prisma.ts `pagedQuery`). Paging an unordered list with
 * offsets can skip or repeat rows, so the whole list is read (an account has few websites) and ordered
 * here; rows seen twice are kept once.
 */
async function allWebsites(ctx: HandlerContext, path: string, query: Record<string, string | undefined>) {
  const byId = new Map<string, UmamiWebsite>()
  for (let page = 1; ; page++) {
    if (page > MAX_WEBSITE_PAGES)
      throw tooManyPages('Umami', 'websites', MAX_WEBSITE_PAGES * WEBSITE_PAGE_SIZE)
    const res = await ctx.client.json<UmamiPage<UmamiWebsite>>({
      path,
      query: { ...query, page, pageSize: WEBSITE_PAGE_SIZE, ...ctx.rawParams },
    })
    for (const w of res.data) byId.set(w.id, w)
    if (res.data.length < WEBSITE_PAGE_SIZE || page * WEBSITE_PAGE_SIZE >= res.count) break
  }
  return [...byId.values()]
}

/** Umami websites are unified properties: full CRUD; listed whole and ordered here (see allWebsites). */
export const propertyHandlers: ObjectHandlers = {
  // Listing without filters returns every site, so virtual webhooks can tell deletions.
  listIsComplete: true,
  listParams: ['query', 'sort', 'order'],
  filters: ['parent_id'],
  sortFields: ['name', 'created_at'],

  async list(ctx, q) {
    const parent = q.filters.parent_id
    const path = typeof parent === 'string' ? `/teams/${encodeURIComponent(parent)}/websites` : '/websites'
    const read = () =>
      allWebsites(ctx, path, {
        // Team websites too: a connection sees every website its key can read.
        includeTeams: typeof parent === 'string' ? undefined : 'true',
        search: q.query,
      })
    const rows = await (typeof parent === 'string' ? onTeam(ctx, parent, read) : read())
    const key = SORT_KEYS[q.sort ?? 'name'] ?? SORT_KEYS.name
    const direction = q.order === 'desc' ? -1 : 1
    rows.sort((a, b) => {
      const x = (key as SortKey)(a)
      const y = (key as SortKey)(b)
      return (x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * direction
    })
    return rows.slice(q.offset, q.offset + q.limit).map(fromUmamiWebsite)
  },

  async get(ctx, id) {
    const website = await onWebsite(ctx, id, () =>
      ctx.client.json<UmamiWebsite | null>({ path: websitePath(id), query: { ...ctx.rawParams } }),
    )
    // An admin's token may see any website id, and Umami then answers 200 `null` for an unknown one
    // (umami-software/umami@v3.1.0:src/app/api/websites/[websiteId]/route.ts).
    if (!website) throw notFound(`website ${id} not found`)
    return fromUmamiWebsite(website)
  },

  async create(ctx, body) {
    const website = await ctx.client.json<UmamiWebsite>({
      method: 'POST',
      path: '/websites',
      body: toUmamiWebsite(body, true),
    })
    return fromUmamiWebsite(website)
  },

  // Umami updates with POST and only the keys sent: PUT and PATCH are the same call.
  async update(ctx, id, body) {
    return fromUmamiWebsite(await onWebsite(ctx, id, () => updateWebsite(ctx.client, id, body)))
  },

  async patch(ctx, id, body) {
    return fromUmamiWebsite(await onWebsite(ctx, id, () => updateWebsite(ctx.client, id, body)))
  },

  async remove(ctx, id) {
    await onWebsite(ctx, id, () => ctx.client.json({ method: 'DELETE', path: websitePath(id) }))
  },
}

function updateWebsite(client: ProviderClient, id: string, body: Readonly<Record<string, unknown>>) {
  return client.json<UmamiWebsite>({
    method: 'POST',
    path: websitePath(id),
    body: toUmamiWebsite(body, false),
    // Setting the same fields twice leaves the same website: safe to retry.
    idempotent: true,
  })
}

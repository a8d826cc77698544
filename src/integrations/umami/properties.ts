import type { ProviderClient } from '../http-client.js'
import { pageWindow, readWindow } from '../page-window.js'
import type { ObjectHandlers } from '../types.js'
import { fromUmamiWebsite, toUmamiWebsite } from './mappers.js'
import type { UmamiPage, UmamiWebsite } from './types.js'

const ORDER_BY: Readonly<Record<string, string>> = { name: 'name', created_at: 'createdAt' }

const websitePath = (id: string) => `/websites/${encodeURIComponent(id)}`

/** Umami websites are unified properties: full CRUD, paged with `page`/`pageSize`. */
export const propertyHandlers: ObjectHandlers = {
  // Listing without filters returns every site, so virtual webhooks can tell deletions.
  listIsComplete: true,
  listParams: ['query', 'sort', 'order'],
  filters: ['parent_id'],
  sortFields: ['name', 'created_at'],

  async list(ctx, q) {
    const parent = q.filters.parent_id
    const path = typeof parent === 'string' ? `/teams/${encodeURIComponent(parent)}/websites` : '/websites'
    const orderBy = q.sort ? ORDER_BY[q.sort] : q.order ? 'name' : undefined
    const rows = await readWindow(pageWindow(q.offset, q.limit), q.limit, async (page, pageSize) => {
      const res = await ctx.client.json<UmamiPage<UmamiWebsite>>({
        path,
        query: {
          page,
          pageSize,
          // Team websites too: a connection sees every website its key can read.
          includeTeams: typeof parent === 'string' ? undefined : 'true',
          search: q.query,
          orderBy,
          sortDescending: q.order === undefined ? undefined : String(q.order === 'desc'),
          ...ctx.rawParams,
        },
      })
      return res.data
    })
    return rows.map(fromUmamiWebsite)
  },

  async get(ctx, id) {
    return fromUmamiWebsite(
      await ctx.client.json<UmamiWebsite>({ path: websitePath(id), query: { ...ctx.rawParams } }),
    )
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
    return fromUmamiWebsite(await updateWebsite(ctx.client, id, body))
  },

  async patch(ctx, id, body) {
    return fromUmamiWebsite(await updateWebsite(ctx.client, id, body))
  },

  async remove(ctx, id) {
    await ctx.client.json({ method: 'DELETE', path: websitePath(id) })
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

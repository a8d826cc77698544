import type { ProviderClient } from '../http-client.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { fromPlausibleSite, toPlausibleSiteCreate, toPlausibleSiteUpdate } from './mappers.js'
import type { PlausibleSite, PlausibleSitesPage } from './types.js'

/**
 * Plausible's cursors are only valid with the `limit` they were made with, so every walk uses this one
 * page size and cuts the unified window out of it; cursors are remembered at each multiple of it.
 */
export const SITES_PAGE_SIZE = 100

const sitePath = (domain: string) => `/api/v1/sites/${encodeURIComponent(domain)}`

async function listSites(ctx: HandlerContext, q: ListQuery) {
  const team = typeof q.filters.parent_id === 'string' ? q.filters.parent_id : undefined
  const scope = `${ctx.connectionId}|plausible-sites|${team ?? ''}|${new URLSearchParams(ctx.rawParams)}`
  const end = q.offset + q.limit
  const aligned = q.offset - (q.offset % SITES_PAGE_SIZE)
  const start = ctx.cursors.walkStart(scope, aligned)
  const rows: PlausibleSite[] = []
  let position = start.offset
  let cursor: string | undefined = start.cursor
  while (position < end) {
    const page = await ctx.client.json<PlausibleSitesPage>({
      path: '/api/v1/sites',
      query: { limit: SITES_PAGE_SIZE, after: cursor, team_id: team, ...ctx.rawParams },
    })
    page.sites.forEach((site, i) => {
      if (position + i >= q.offset && position + i < end) rows.push(site)
    })
    position += SITES_PAGE_SIZE
    cursor = page.meta.after ?? undefined
    if (cursor === undefined) break
    ctx.cursors.set(scope, position, cursor)
  }
  return rows.map((site) => fromPlausibleSite(site, team))
}

function updateSite(client: ProviderClient, domain: string, body: WriteBody) {
  return client.json<PlausibleSite>({
    method: 'PUT',
    path: sitePath(domain),
    body: toPlausibleSiteUpdate(body),
  })
}

/** Plausible sites (Sites API, Enterprise plans) are unified properties, the domain being the id. */
export const propertyHandlers: ObjectHandlers = {
  // Listing without filters returns every site, so virtual webhooks can tell deletions.
  listIsComplete: true,
  listParams: [],
  filters: ['parent_id'],
  list: listSites,

  async get(ctx, id) {
    return fromPlausibleSite(
      await ctx.client.json<PlausibleSite>({ path: sitePath(id), query: { ...ctx.rawParams } }),
    )
  },

  async create(ctx, body) {
    const site = await ctx.client.json<PlausibleSite>({
      method: 'POST',
      path: '/api/v1/sites',
      body: toPlausibleSiteCreate(body),
    })
    return fromPlausibleSite(site, typeof body.parent_id === 'string' ? body.parent_id : undefined)
  },

  // Plausible's update is a partial PUT: the unified PUT and PATCH are the same call.
  async update(ctx, id, body) {
    return fromPlausibleSite(await updateSite(ctx.client, id, body))
  },

  async patch(ctx, id, body) {
    return fromPlausibleSite(await updateSite(ctx.client, id, body))
  },

  async remove(ctx, id) {
    await ctx.client.json({ method: 'DELETE', path: sitePath(id) })
  },
}

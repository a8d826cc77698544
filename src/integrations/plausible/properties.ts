import { ApiError, notImplemented, ProviderError } from '../../errors.js'
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

/** Plausible's own answer for a site it does not know (external_sites_controller.ex). */
const SITE_NOT_FOUND = /site could not be found/i

/**
 * Sites API failures in Unigate's terms. Community Edition has no Sites API: any other 404 means that
 * (501). Writes need a key with the `sites:provision:*` scope; a Stats API key is answered 401 although
 * it reads fine (plausible/analytics lib/plausible_web/plugs/authorize_public_api.ex), so that 401 is
 * a 403 naming the scope rather than a request to re-authorize.
 */
async function sitesApi<T>(call: () => Promise<T>, write = false): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404 && !SITE_NOT_FOUND.test(err.providerMessage)) {
      throw notImplemented(
        'Plausible (plausible): this Plausible has no Sites API (Community Edition has none); reports and events still work',
      )
    }
    if (write && err instanceof ProviderError && err.status === 401) {
      throw new ApiError(
        403,
        `Plausible refused the site change: it needs a Sites API key (scope sites:provision:*); a Stats API key can only read sites (${err.providerMessage})`,
      )
    }
    throw err
  }
}

async function listSites(ctx: HandlerContext, q: ListQuery) {
  const team = typeof q.filters.parent_id === 'string' ? q.filters.parent_id : undefined
  const scope = `${ctx.connectionId}|plausible-sites|${team ?? ''}|${new URLSearchParams(ctx.rawParams)}`
  const end = q.offset + q.limit
  const aligned = q.offset - (q.offset % SITES_PAGE_SIZE)
  const start = await ctx.cursors.walkStart(scope, aligned)
  const rows: PlausibleSite[] = []
  let position = start.offset
  let cursor: string | undefined = start.cursor
  while (position < end) {
    const page = await sitesApi(() =>
      ctx.client.json<PlausibleSitesPage>({
        path: '/api/v1/sites',
        query: { limit: SITES_PAGE_SIZE, after: cursor, team_id: team, ...ctx.rawParams },
      }),
    )
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
  return sitesApi(
    () =>
      client.json<PlausibleSite>({
        method: 'PUT',
        path: sitePath(domain),
        body: toPlausibleSiteUpdate(body),
      }),
    true,
  )
}

/** Plausible sites (Sites API, Enterprise plans) are unified properties, the domain being the id. */
export const propertyHandlers: ObjectHandlers = {
  // Listing without filters returns every site, so virtual webhooks can tell deletions.
  listIsComplete: true,
  listParams: [],
  filters: ['parent_id'],
  rawOwned: {
    after: 'Unigate pages with limit and offset',
    limit: 'Unigate pages with limit and offset',
    team_id: 'use the parent_id filter',
  },
  list: listSites,

  async get(ctx, id) {
    return fromPlausibleSite(
      await sitesApi(() =>
        ctx.client.json<PlausibleSite>({ path: sitePath(id), query: { ...ctx.rawParams } }),
      ),
    )
  },

  async create(ctx, body) {
    const site = await sitesApi(
      () =>
        ctx.client.json<PlausibleSite>({
          method: 'POST',
          path: '/api/v1/sites',
          body: toPlausibleSiteCreate(body),
        }),
      true,
    )
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
    await sitesApi(() => ctx.client.json({ method: 'DELETE', path: sitePath(id) }), true)
  },
}

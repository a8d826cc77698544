import pMap from 'p-map'
import type { ProviderClient } from '../http-client.js'
import { RECORD_READS_AT_ONCE } from '../record-reads.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { fromFathomSite, toFathomSite } from './mappers.js'
import type { FathomList, FathomSite } from './types.js'

/**
 * What a token may list, kept with the connection at verify: `all` for `*` or `all-sites-readonly`,
 * else the site ids of its `read:{id}`/`manage:{id}` abilities (https://usefathom.com/api/v1/sites:
 * listing needs all-sites access; reading one site needs read:{site_id} or manage:{site_id}).
 */
export function siteAccessOf(abilities: readonly string[]): { site_access: string; site_ids?: string } {
  if (abilities.includes('*') || abilities.includes('all-sites-readonly')) return { site_access: 'all' }
  const ids = [...new Set(abilities.map((a) => /^(?:read|manage):(.+)$/.exec(a)?.[1]).filter(Boolean))]
  return { site_access: 'sites', site_ids: ids.join(',') }
}

/** A site-specific token cannot list sites: its sites are read one by one, in id order. */
async function listOwnSites(ctx: HandlerContext, q: ListQuery) {
  const ids = (ctx.settings.site_ids ?? '').split(',').filter(Boolean).sort()
  const window = ids.slice(q.offset, q.offset + q.limit)
  // A few at a time: a page of up to 1,000 sites at once would pass the connection's queue of calls.
  const sites = await pMap(
    window,
    (id) => ctx.client.json<FathomSite>({ path: sitePath(id), query: { ...ctx.rawParams } }),
    { concurrency: RECORD_READS_AT_ONCE },
  )
  return sites.map(fromFathomSite)
}

/** Fathom's largest page. */
const MAX_PAGE = 100

const sitePath = (id: string) => `/sites/${encodeURIComponent(id)}`

/**
 * Fathom pages with `starting_after=<id of the last row>` and `has_more`. The cursor for a position is the
 * id just before it, remembered at the end of every page read, so the next unified page costs one call.
 */
async function listSites(ctx: HandlerContext, q: ListQuery) {
  // Connections verified before site tokens were told apart could list all sites.
  if (ctx.settings.site_access === 'sites') return listOwnSites(ctx, q)
  const scope = `${ctx.connectionId}|fathom-sites|${new URLSearchParams(ctx.rawParams)}`
  // Cursors sit at the ends of pages read; any of them is a valid place to continue from.
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const end = q.offset + q.limit
  const rows: FathomSite[] = []
  let position = start.offset
  let cursor: string | undefined = start.cursor
  while (position < end) {
    // Skip towards the window in full pages, then ask for exactly what is left of it.
    const size =
      position < q.offset ? Math.min(MAX_PAGE, q.offset - position) : Math.min(MAX_PAGE, end - position)
    const page = await ctx.client.json<FathomList<FathomSite>>({
      path: '/sites',
      query: { limit: size, starting_after: cursor, ...ctx.rawParams },
    })
    page.data.forEach((site, i) => {
      if (position + i >= q.offset && position + i < end) rows.push(site)
    })
    position += page.data.length
    const last = page.data[page.data.length - 1]
    if (!page.has_more || !last) break
    cursor = last.id
    ctx.cursors.set(scope, position, cursor)
  }
  return rows.map(fromFathomSite)
}

function updateSite(client: ProviderClient, id: string, body: WriteBody) {
  return client.json<FathomSite>({
    method: 'POST',
    path: sitePath(id),
    body: toFathomSite(body, false),
    // Setting the same name twice leaves the same site: safe to retry.
    idempotent: true,
  })
}

export const propertyHandlers: ObjectHandlers = {
  // Listing without filters returns every site, so virtual webhooks can tell deletions.
  listIsComplete: true,
  listParams: [],
  filters: [],
  rawOwned: {
    starting_after: 'Unigate pages with limit and offset',
    limit: 'Unigate pages with limit and offset',
  },
  list: listSites,

  async get(ctx, id) {
    return fromFathomSite(
      await ctx.client.json<FathomSite>({ path: sitePath(id), query: { ...ctx.rawParams } }),
    )
  },

  async create(ctx, body) {
    return fromFathomSite(
      await ctx.client.json<FathomSite>({ method: 'POST', path: '/sites', body: toFathomSite(body, true) }),
    )
  },

  // Fathom updates with POST and only the keys sent: PUT and PATCH are the same call.
  async update(ctx, id, body) {
    return fromFathomSite(await updateSite(ctx.client, id, body))
  },

  async patch(ctx, id, body) {
    return fromFathomSite(await updateSite(ctx.client, id, body))
  },

  async remove(ctx, id) {
    await ctx.client.json({ method: 'DELETE', path: sitePath(id) })
  },
}

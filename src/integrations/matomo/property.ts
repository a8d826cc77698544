import { badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { callMatomo } from './client.js'
import { fromMatomoSite, toMatomoSiteParams } from './mappers.js'
import type { MatomoSite } from './provider-types.js'

const SITE_ID = /^\d+$/

/** An id that cannot be a site's names no property: a 404, as an unknown id is on every integration. */
function checkId(id: string): string {
  if (!SITE_ID.test(id)) throw notFound(`property ${id} not found: Matomo site ids are whole numbers`)
  return id
}

async function getSite(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const site = await callMatomo<MatomoSite>(ctx, 'SitesManager.getSiteFromId', {
    ...ctx.rawParams,
    idSite: checkId(id),
  })
  return fromMatomoSite(site)
}

/**
 * Matomo's site listings take a `limit` but no offset, so the page is cut from the first offset+limit
 * sites: a site list is short, and this keeps the order Matomo gives. `filter_limit=-1` because over
 * HTTP every answer, plain lists too, is cut to API_datatable_default_limit (100) otherwise
 * (matomo-org/matomo@f09912cb:plugins/API/Controller.php, core/API/ResponseBuilder.php handleArray).
 */
/** Matomo finds sites by name or lists a group's, not both at once. */
function checkSitesAsked(q: ListQuery): void {
  if (typeof q.filters.parent_id === 'string' && q.query) {
    throw badRequest('Matomo cannot search sites by name within a group; give either query or parent_id')
  }
}

async function listSites(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  checkSitesAsked(q)
  const group = q.filters.parent_id
  const upTo = q.offset + q.limit
  const sites =
    typeof group === 'string'
      ? await callMatomo<MatomoSite[]>(ctx, 'SitesManager.getSitesFromGroup', {
          filter_limit: -1,
          ...ctx.rawParams,
          group,
        })
      : q.query
        ? await callMatomo<MatomoSite[]>(ctx, 'SitesManager.getPatternMatchSites', {
            filter_limit: -1,
            ...ctx.rawParams,
            pattern: q.query,
            limit: upTo,
          })
        : await callMatomo<MatomoSite[]>(ctx, 'SitesManager.getSitesWithAtLeastViewAccess', {
            filter_limit: -1,
            ...ctx.rawParams,
            limit: upTo,
          })
  return (Array.isArray(sites) ? sites : []).slice(q.offset, upTo).map(fromMatomoSite)
}

async function createSite(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const params = toMatomoSiteParams(body)
  if (!params.siteName) throw badRequest('name is required to create a Matomo site')
  const created = await callMatomo<{ value: number | string }>(ctx, 'SitesManager.addSite', params)
  return getSite(ctx, String(created.value))
}

async function updateSite(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord> {
  const params = toMatomoSiteParams(body)
  await callMatomo(ctx, 'SitesManager.updateSite', { ...params, idSite: checkId(id) })
  return getSite(ctx, id)
}

export const propertyHandlers: ObjectHandlers = {
  list: listSites,
  checkList: checkSitesAsked,
  get: getSite,
  create: createSite,
  update: updateSite,
  patch: updateSite,
  async remove(ctx, id) {
    await callMatomo(ctx, 'SitesManager.deleteSite', { idSite: checkId(id) })
  },
  listParams: ['query'],
  filters: ['parent_id'],
  // Every site/project the token can see: one missing from a list was deleted.
  listIsComplete: true,
}

import pMap from 'p-map'
import { ApiError, badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { RECORD_READS_AT_ONCE } from '../record-reads.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { fromPosthogProject, toPosthogProject } from './mappers.js'
import { REST_LIST_OWNED, restQuery } from './requests.js'
import type { PosthogPage, PosthogProject } from './types.js'

/**
 * Properties are PostHog projects. Project lists use PostHog's basic serializer, which has no created_at,
 * updated_at or base_currency: those three are slow fields, read from each project's detail when asked for.
 */
const DETAIL_ONLY_FIELDS = ['created_at', 'updated_at', 'currency'] as const

function organizationOf(ctx: HandlerContext, parentId: unknown): string {
  const org = typeof parentId === 'string' && parentId !== '' ? parentId : ctx.settings.organization_id
  if (!org) throw badRequest('parent_id is required: this PostHog connection has no default organization')
  return encodeURIComponent(org)
}

function projectPath(id: string): string {
  if (!/^\d+$/.test(id)) throw notFound(`property ${id}: PostHog project ids are numbers`)
  return `/api/projects/${id}/`
}

async function readProject(ctx: HandlerContext, id: string): Promise<PosthogProject> {
  return ctx.client.json<PosthogProject>({ path: projectPath(id), query: restQuery(ctx) })
}

async function listProperties(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const page = await ctx.client.json<PosthogPage<PosthogProject>>({
    path: `/api/organizations/${organizationOf(ctx, query.filters.parent_id)}/projects/`,
    query: restQuery(ctx, { limit: query.limit, offset: query.offset, search: query.query }),
  })
  // A page of more projects than asked for is not PostHog's (its limit is honoured): refused before a
  // detail read is made for each of them.
  if (!Array.isArray(page.results) || page.results.length > query.limit) {
    throw new ApiError(
      502,
      `PostHog answered ${Array.isArray(page.results) ? page.results.length : 'no list of'} projects for a page of ${query.limit}`,
    )
  }
  const wantsDetail = DETAIL_ONLY_FIELDS.some((f) => ctx.fields.slow.has(f))
  const projects = wantsDetail
    ? await pMap(page.results, (p) => readProject(ctx, String(p.id)), { concurrency: RECORD_READS_AT_ONCE })
    : page.results
  return projects.map(fromPosthogProject)
}

async function createProperty(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const project = await ctx.client.json<PosthogProject>({
    method: 'POST',
    path: `/api/organizations/${organizationOf(ctx, body.parent_id)}/projects/`,
    query: restQuery(ctx),
    body: toPosthogProject(body),
  })
  return fromPosthogProject(project)
}

async function writeProperty(ctx: HandlerContext, method: 'PUT' | 'PATCH', id: string, body: WriteBody) {
  const project = await ctx.client.json<PosthogProject>({
    method,
    path: projectPath(id),
    query: restQuery(ctx),
    body: toPosthogProject(body),
  })
  return fromPosthogProject(project)
}

export const propertyHandlers: ObjectHandlers = {
  rawOwned: REST_LIST_OWNED,
  list: listProperties,
  get: async (ctx, id) => fromPosthogProject(await readProject(ctx, id)),
  create: createProperty,
  update: (ctx, id, body) => writeProperty(ctx, 'PUT', id, body),
  patch: (ctx, id, body) => writeProperty(ctx, 'PATCH', id, body),
  remove: async (ctx, id) => {
    await ctx.client.send({ method: 'DELETE', path: projectPath(id), query: restQuery(ctx) })
  },
  listParams: ['query'],
  filters: ['parent_id'],
  slowFields: DETAIL_ONLY_FIELDS,
}

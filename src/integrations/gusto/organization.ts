import { badRequest } from '../../errors.js'
import { HRIS_GROUP_TYPES } from '../../models/index.js'
import type { ListQuery, ObjectHandlers } from '../types.js'
import { companyOf, companyPath } from './company.js'
import { fromGustoDepartment, fromGustoLocation } from './mappers.js'
import { readGustoRange } from './paging.js'
import type { GustoDepartment, GustoLocation } from './types.js'

/** `GET /v1/companies/{id}/locations` (paged) and `GET /v1/locations/{id}`. */
export const locationHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, q) {
    const path = `${companyPath(companyOf(ctx))}/locations`
    return (await readGustoRange<GustoLocation>(ctx, path, {}, q.offset, q.limit)).map(fromGustoLocation)
  },
  async get(ctx, id) {
    const path = `/v1/locations/${encodeURIComponent(id)}`
    return fromGustoLocation(await ctx.client.json<GustoLocation>({ path, query: { ...ctx.rawParams } }))
  },
}

/** The group type a `type` filter names, upper-cased, or a 400 naming the unified group types. */
function groupType(q: ListQuery): string | undefined {
  const type = typeof q.filters.type === 'string' ? q.filters.type.toUpperCase() : undefined
  if (type !== undefined && !(HRIS_GROUP_TYPES as readonly string[]).includes(type)) {
    throw badRequest(
      `type: '${q.filters.type}' is not a group type; use one of ${HRIS_GROUP_TYPES.join(', ')}`,
    )
  }
  return type
}

/**
 * Departments as groups: `GET /v1/companies/{id}/departments` (the whole list; Gusto documents no paging
 * for it) and `GET /v1/departments/{id}`. Gusto has departments only, so `type` filters to DEPARTMENT or
 * to nothing.
 */
export const groupHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: ['type'],
  checkList: (q) => void groupType(q),
  async list(ctx, q) {
    const type = groupType(q)
    // Gusto has no teams, divisions or other kinds of group: asking for one finds none.
    if (type !== undefined && type !== 'DEPARTMENT') return []
    const path = `${companyPath(companyOf(ctx))}/departments`
    const all = await ctx.client.json<GustoDepartment[]>({ path, query: { ...ctx.rawParams } })
    if (!Array.isArray(all)) throw new TypeError('departments answered something other than a list')
    return all.slice(q.offset, q.offset + q.limit).map(fromGustoDepartment)
  },
  async get(ctx, id) {
    const path = `/v1/departments/${encodeURIComponent(id)}`
    return fromGustoDepartment(await ctx.client.json<GustoDepartment>({ path, query: { ...ctx.rawParams } }))
  },
}

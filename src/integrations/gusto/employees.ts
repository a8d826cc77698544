import { badRequest } from '../../errors.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { companyOf, companyPath } from './company.js'
import { byFilter } from './filters.js'
import { fromGustoEmployee } from './mappers.js'
import { readGustoRange } from './paging.js'
import type { GustoDepartment, GustoEmployee } from './types.js'

/** A department's employees, which `GET /v1/departments/{id}` lists: Gusto's employee list cannot filter by it. */
async function departmentMembers(ctx: HandlerContext, id: string): Promise<string[]> {
  const department = await byFilter('group_id', id, '/group', () =>
    ctx.client.json<GustoDepartment>({ path: `/v1/departments/${encodeURIComponent(id)}` }),
  )
  return (department.employees ?? []).map((e) => e.uuid).filter((u): u is string => typeof u === 'string')
}

/**
 * `GET /v1/companies/{id}/employees`: onboarding, active and terminated employees, paged; `location_id` is
 * Gusto's `location_uuid`, `query` its `search_term`, and `group_id` the department's members by `uuids`.
 */
export const employeeHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: ['query'],
  filters: ['location_id', 'group_id'],
  // Gusto reads these as the unified filters: a raw one would silently replace the caller's.
  rawOwned: { search_term: 'use query', location_uuid: 'use location_id' },
  async list(ctx, q) {
    const query: Record<string, string | undefined> = {}
    if (typeof q.filters.location_id === 'string') query.location_uuid = q.filters.location_id
    if (q.query) query.search_term = q.query
    if (typeof q.filters.group_id === 'string') {
      // `group_id` is sent as Gusto's one `uuids`: a raw one beside it would be replaced without a word.
      if (ctx.rawParams.uuids !== undefined)
        throw badRequest(
          'raw: uuids and group_id both filter Gusto employees by `uuids`; send one or the other',
        )
      const members = await departmentMembers(ctx, q.filters.group_id)
      if (members.length === 0) return []
      query.uuids = members.join(',')
    }
    const path = `${companyPath(companyOf(ctx))}/employees`
    return (await readGustoRange<GustoEmployee>(ctx, path, query, q.offset, q.limit)).map(fromGustoEmployee)
  },
  async get(ctx, id) {
    const path = `/v1/employees/${encodeURIComponent(id)}`
    return fromGustoEmployee(await ctx.client.json<GustoEmployee>({ path, query: { ...ctx.rawParams } }))
  },
}

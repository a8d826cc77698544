import { ApiError, notFound } from '../../errors.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { fromGustoCompany } from './mappers.js'
import type { GustoCompany } from './types.js'

/**
 * The company the connection's token was granted for, learned at verification (`GET /v1/token_info`): since
 * API version 2023-05-01 a token reaches exactly one company (docs.gusto.com/app-integrations/docs/oauth2).
 */
export function companyOf(ctx: HandlerContext): string {
  const id = ctx.settings.company_id
  if (!id) {
    throw new ApiError(
      409,
      'this Gusto connection has no company on record; reconnect it so Unigate can learn it',
    )
  }
  return id
}

export const companyPath = (id: string) => `/v1/companies/${encodeURIComponent(id)}`

export const companyHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, q) {
    const company = await ctx.client.json<GustoCompany>({
      path: companyPath(companyOf(ctx)),
      query: { ...ctx.rawParams },
    })
    return [fromGustoCompany(company)].slice(q.offset, q.offset + q.limit)
  },
  /**
   * A token reaches its one company only: another id is not found here, without spending a call whose refusal
   * (documented as 404, but a grant error could come back as 401/403) might read as a broken connection.
   */
  async get(ctx, id) {
    const own = companyOf(ctx)
    if (id !== own)
      throw notFound(`get hris_company ${id}: not found; this Gusto connection's company is '${own}'`)
    return fromGustoCompany(
      await ctx.client.json<GustoCompany>({ path: companyPath(own), query: { ...ctx.rawParams } }),
    )
  },
}

import { notFound } from '../../errors.js'
import type { Credentials, HandlerContext, ObjectHandlers } from '../types.js'
import { fromBamboohrCompany } from './mappers.js'
import type { BamboohrCompany } from './types.js'

/** The connection's company id: its BambooHR subdomain, as the connection was created with it. */
export const companyIdOf = (credentials: Credentials) =>
  (credentials.company_domain ?? '').trim().toLowerCase()

async function readCompany(ctx: HandlerContext) {
  const company = await ctx.client.json<BamboohrCompany>({
    path: '/company_information',
    query: { ...ctx.rawParams },
  })
  return fromBamboohrCompany(company, companyIdOf(ctx.credentials))
}

/** One API key reads one account, so the company list is that account (`GET /v1/company_information`). */
export const companyHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, query) {
    return [await readCompany(ctx)].slice(query.offset, query.offset + query.limit)
  },
  async get(ctx, id) {
    if (id.toLowerCase() !== companyIdOf(ctx.credentials)) {
      throw notFound(
        `get hris_company ${id}: not found at BambooHR; this connection's company is '${companyIdOf(ctx.credentials)}'`,
      )
    }
    return readCompany(ctx)
  },
}

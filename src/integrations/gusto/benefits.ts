import type { ObjectHandlers } from '../types.js'
import { companyOf, companyPath } from './company.js'
import { fromGustoCompanyBenefit } from './mappers.js'
import type { GustoCompanyBenefit } from './types.js'

/** `GET /v1/companies/{id}/company_benefits` (the whole list) and `GET /v1/company_benefits/{id}`. */
export const benefitHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, q) {
    const path = `${companyPath(companyOf(ctx))}/company_benefits`
    const all = await ctx.client.json<GustoCompanyBenefit[]>({ path, query: { ...ctx.rawParams } })
    if (!Array.isArray(all)) throw new TypeError('company_benefits answered something other than a list')
    return all.slice(q.offset, q.offset + q.limit).map(fromGustoCompanyBenefit)
  },
  async get(ctx, id) {
    const path = `/v1/company_benefits/${encodeURIComponent(id)}`
    return fromGustoCompanyBenefit(
      await ctx.client.json<GustoCompanyBenefit>({ path, query: { ...ctx.rawParams } }),
    )
  },
}

import { notFound } from '../../errors.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { companyIdOf } from './company.js'
import { fromBamboohrBenefit } from './mappers.js'
import type { BamboohrCompanyBenefit } from './types.js'

/** Every active plan in one call (`GET /v1/benefit/company_benefit`); there is no read of one plan by id. */
async function allBenefits(ctx: HandlerContext) {
  const body = await ctx.client.json<{ companyBenefits: BamboohrCompanyBenefit[] }>({
    path: '/benefit/company_benefit',
    query: { ...ctx.rawParams },
  })
  if (!Array.isArray(body.companyBenefits)) throw new TypeError('company_benefit answered no companyBenefits')
  const company = companyIdOf(ctx.credentials)
  return body.companyBenefits.map((b) => fromBamboohrBenefit(b, company))
}

export const benefitHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, q) {
    return (await allBenefits(ctx)).slice(q.offset, q.offset + q.limit)
  },
  async get(ctx, id) {
    const found = (await allBenefits(ctx)).find((b) => b.id === id)
    if (!found) throw notFound(`get hris_benefit ${id}: not found at BambooHR`)
    return found
  },
}

import { badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { companyOf, companyPath } from './company.js'
import { byFilter } from './filters.js'
import { fromGustoEmployeeBenefit, fromGustoGarnishment } from './mappers.js'
import { readAllGusto, readGustoRange } from './paging.js'
import type { GustoEmployee, GustoEmployeeBenefit, GustoGarnishment } from './types.js'

/** How many employees a 400 names when a deduction list lacks `user_id`. */
const NAMED_EMPLOYEES = 20

const employeePath = (id: string) => `/v1/employees/${encodeURIComponent(id)}`

/**
 * Gusto keeps deductions per employee (`/v1/employees/{id}/garnishments` and `/employee_benefits`) or per
 * benefit (`/v1/company_benefits/{id}/employee_benefits`), with no company-wide list: listing every
 * deduction would cost two calls per employee, so a list names one employee or one benefit. Without
 * either, the 400 names the connection's first employees, so the caller needs no Gusto knowledge.
 */
async function missingScope(ctx: HandlerContext): Promise<never> {
  const path = `${companyPath(companyOf(ctx))}/employees`
  const employees = await readGustoRange<GustoEmployee>(ctx, path, {}, 0, NAMED_EMPLOYEES + 1)
  const named = employees
    .slice(0, NAMED_EMPLOYEES)
    .map((e) => `'${e.uuid}' (${[e.first_name, e.last_name].filter(Boolean).join(' ')})`)
  const more = employees.length > NAMED_EMPLOYEES ? ', …' : ''
  throw badRequest(
    'user_id is required: Gusto lists deductions per employee (or per benefit, with benefit_id); ' +
      (named.length > 0 ? `choose one of ${named.join(', ')}${more}` : 'this company has no employees yet'),
  )
}

export const deductionHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: ['user_id', 'benefit_id'],
  requiredParams: ['user_id'],
  async list(ctx, q) {
    const company = companyOf(ctx)
    const user = typeof q.filters.user_id === 'string' ? q.filters.user_id : undefined
    const benefit = typeof q.filters.benefit_id === 'string' ? q.filters.benefit_id : undefined
    if (!user && !benefit) return missingScope(ctx)
    let rows: UnifiedRecord[]
    if (!user) {
      const path = `/v1/company_benefits/${encodeURIComponent(benefit as string)}/employee_benefits`
      const enrolled = await byFilter('benefit_id', benefit as string, '/benefit', () =>
        readAllGusto<GustoEmployeeBenefit>(ctx, path),
      )
      rows = enrolled.map((b) => fromGustoEmployeeBenefit(b, company))
    } else {
      const enrolled = await byFilter('user_id', user, '/employee', () =>
        readAllGusto<GustoEmployeeBenefit>(ctx, `${employeePath(user)}/employee_benefits`),
      )
      const benefits = enrolled
        .filter((b) => !benefit || b.company_benefit_uuid === benefit)
        .map((b) => fromGustoEmployeeBenefit(b, company))
      // A garnishment belongs to no benefit: a benefit_id filter leaves them out.
      const garnishments = benefit
        ? []
        : (await readAllGusto<GustoGarnishment>(ctx, `${employeePath(user)}/garnishments`)).map((g) =>
            fromGustoGarnishment(g, company),
          )
      rows = [...benefits, ...garnishments]
    }
    return rows.slice(q.offset, q.offset + q.limit)
  },
  /** A deduction id is a garnishment's or an employee benefit's uuid: the garnishment is asked first. */
  async get(ctx, id) {
    const company = companyOf(ctx)
    try {
      const g = await ctx.client.json<GustoGarnishment>({
        path: `/v1/garnishments/${encodeURIComponent(id)}`,
        query: { ...ctx.rawParams },
      })
      return fromGustoGarnishment(g, company)
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
    try {
      const path = `/v1/employee_benefits/${encodeURIComponent(id)}`
      const benefit = await ctx.client.json<GustoEmployeeBenefit>({ path, query: { ...ctx.rawParams } })
      return fromGustoEmployeeBenefit(benefit, company)
    } catch (err) {
      if (err instanceof ProviderError && err.status === 404)
        throw notFound(`get hris_deduction ${id}: not found at Gusto`)
      throw err
    }
  },
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DAY_MS } from '../kit/index.js'
import { callerOf, requireCompany, requireScope } from './auth.js'
import { DEFAULT_PER, MAX_PAYROLL_PER } from './constants.js'
import { invalid, notFound } from './errors.js'
import type { GustoOAuth } from './oauth.js'
import type { GustoState, PayrollRecord } from './state.js'

type Query = Record<string, string | undefined>
type Json = Record<string, unknown>

const positive = (v: string | undefined) => {
  const n = Number.parseInt(v ?? '', 10)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

/**
 * `page` and `per`: without `page` the whole list ("When unspecified, will load all objects unless endpoint
 * forces pagination"); with it, `per` rows (default 25) and X-Page, X-Total-Count, X-Total-Pages and
 * X-Per-Page headers (https://docs.gusto.com/app-integrations/docs/pagination).
 */
function paged<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  rows: readonly T[],
  forced?: { max: number },
): T[] {
  const q = request.query as Query
  const page = positive(q.page) ?? (forced ? 1 : undefined)
  if (page === undefined) return [...rows]
  let per = positive(q.per) ?? DEFAULT_PER
  if (forced) per = Math.min(per, forced.max)
  reply.headers({
    'x-page': String(page),
    'x-per-page': String(per),
    'x-total-count': String(rows.length),
    'x-total-pages': String(Math.max(1, Math.ceil(rows.length / per))),
  })
  return rows.slice((page - 1) * per, page * per)
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export function registerRoutes(app: FastifyInstance, state: GustoState, oauth: GustoOAuth): void {
  /** `GET /v1/token_info`: the token's scopes, its company and owner, for any valid token (get-v1-token-info). */
  app.get('/v1/token_info', async (request) => {
    const caller = callerOf(request)
    return {
      scope: caller.scopes.join(' '),
      resource: { type: 'Company', uuid: caller.company },
      resource_owner: { type: 'CompanyAdmin', uuid: '8fdc31f0-a8a7-4872-a9f1-dcb5e6f876e3' },
    }
  })

  const company = (request: FastifyRequest, scope: string) => {
    const caller = requireScope(request, scope)
    requireCompany(caller, (request.params as { company: string }).company)
  }

  /** `GET /v1/companies/{company_id}` (companies:read). */
  app.get('/v1/companies/:company', async (request) => {
    company(request, 'companies:read')
    return state.company
  })

  /**
   * `GET /v1/companies/{company_id}/employees` (employees:read): onboarding, active and terminated;
   * `location_uuid`, `search_term` (names), `uuids`, `terminated`, paged.
   */
  app.get('/v1/companies/:company/employees', async (request, reply) => {
    company(request, 'employees:read')
    const q = request.query as Query
    if (q.search_term !== undefined && q.sort_by !== undefined)
      throw invalid('sort_by', 'sort_by cannot be used with search_term')
    const uuids = q.uuids === undefined ? undefined : new Set(list(q.uuids))
    const term = q.search_term?.toLowerCase()
    const rows = state.employees.filter(
      (e) =>
        (!q.location_uuid || e.locationUuid === q.location_uuid) &&
        (!uuids || uuids.has(e.uuid)) &&
        (!term || `${e.first_name} ${e.last_name}`.toLowerCase().includes(term)) &&
        (q.terminated === undefined || String(e.terminatedOn !== null) === q.terminated),
    )
    const { scopes } = callerOf(request)
    return paged(request, reply, rows).map((e) => state.employeeJson(e, scopes))
  })

  /** `GET /v1/employees/{employee_id}` (employees:read). */
  app.get('/v1/employees/:id', async (request) => {
    requireScope(request, 'employees:read')
    const e = state.employees.find((x) => x.uuid === (request.params as { id: string }).id)
    if (!e) throw notFound()
    return state.employeeJson(e, callerOf(request).scopes)
  })

  /** `GET /v1/companies/{company_id}/locations` (companies:read), paged; `GET /v1/locations/{id}`. */
  app.get('/v1/companies/:company/locations', async (request, reply) => {
    company(request, 'companies:read')
    return paged(request, reply, state.locations)
  })
  app.get('/v1/locations/:id', async (request) => {
    requireScope(request, 'companies:read')
    const found = state.locations.find((l) => l.uuid === (request.params as { id: string }).id)
    if (!found) throw notFound()
    return found
  })

  /** `GET /v1/companies/{company_uuid}/departments` (departments:read, no paging); `GET /v1/departments/{id}`. */
  app.get('/v1/companies/:company/departments', async (request) => {
    company(request, 'departments:read')
    return state.departments
  })
  app.get('/v1/departments/:id', async (request) => {
    requireScope(request, 'departments:read')
    const found = state.departments.find((d) => d.uuid === (request.params as { id: string }).id)
    if (!found) throw notFound()
    return found
  })

  /**
   * `GET /v1/companies/{company_id}/payrolls` (payrolls:read): processed regular payrolls of the past 6
   * months by default; `processing_statuses`, `payroll_types`, `start_date`/`end_date` (pay period, or check
   * date with `date_filter_by=check_date`, for regular processed payrolls only); "end_date can be at most 3
   * months in the future and start_date and end_date can't be more than 1 year apart" (422 here; the wording
   * is ours).
   */
  app.get('/v1/companies/:company/payrolls', async (request, reply) => {
    company(request, 'payrolls:read')
    const q = request.query as Query
    const now = oauth.now()
    const today = day(now)
    for (const key of ['start_date', 'end_date'] as const) {
      const v = q[key]
      if (v !== undefined && !isDate(v)) throw invalid(key, `${key} must be a date (YYYY-MM-DD)`)
    }
    const end = q.end_date ?? today
    const start = q.start_date ?? day(Date.parse(`${end}T00:00:00Z`) - 183 * DAY_MS)
    if (Date.parse(end) > now + 92 * DAY_MS)
      throw invalid('end_date', 'end_date can be at most 3 months in the future')
    if (Date.parse(end) - Date.parse(start) > 366 * DAY_MS)
      throw invalid('start_date', "start_date and end_date can't be more than 1 year apart")
    const statuses = q.processing_statuses ? list(q.processing_statuses) : ['processed']
    const types = q.payroll_types ? list(q.payroll_types) : ['regular']
    const byCheck = q.date_filter_by === 'check_date'
    const rows = state.payrolls.filter((p: PayrollRecord) => {
      if (!statuses.includes(p.processed ? 'processed' : 'unprocessed')) return false
      if (!types.includes(p.offCycle ? 'off_cycle' : 'regular')) return false
      // `date_filter_by` "applies only to regular processed payrolls and defaults to pay period": an
      // off-cycle or unprocessed payroll is always chosen by its pay period (same operation).
      return byCheck && !p.offCycle && p.processed
        ? p.checkDate >= start && p.checkDate <= end
        : p.periodStart >= start && p.periodEnd <= end
    })
    const ordered = q.sort_order === 'desc' ? [...rows].reverse() : rows
    return paged(request, reply, ordered).map((p) => state.payrollSummary(p))
  })

  /**
   * `GET /v1/companies/{company_id}/payrolls/{payroll_id}` (payrolls:read): with employee compensations,
   * "paginated, with a maximum page size of 100"; `taxes` and `benefits` only when `include` names them;
   * `deductions` always (version 2025-06-15).
   */
  app.get('/v1/companies/:company/payrolls/:payroll', async (request, reply) => {
    company(request, 'payrolls:read')
    const p = state.payrolls.find((x) => x.uuid === (request.params as { payroll: string }).payroll)
    if (!p) throw notFound()
    // "employee_benefits:read scope is required to return benefits": without it they are left out.
    const include = new Set(list((request.query as Query).include))
    if (!callerOf(request).scopes.includes('employee_benefits:read')) include.delete('benefits')
    const rows = paged(request, reply, p.compensations, { max: MAX_PAYROLL_PER }).map((c) => {
      const { taxes, benefits, ...rest } = c as Json
      return {
        ...rest,
        ...(include.has('taxes') ? { taxes } : {}),
        ...(include.has('benefits') ? { benefits } : {}),
      }
    })
    return { ...state.payrollSummary(p), employee_compensations: rows }
  })

  /** `GET /v1/companies/{company_id}/company_benefits` (company_benefits:read); `GET /v1/company_benefits/{id}`. */
  app.get('/v1/companies/:company/company_benefits', async (request) => {
    company(request, 'company_benefits:read')
    return state.companyBenefits
  })
  app.get('/v1/company_benefits/:id', async (request) => {
    requireScope(request, 'company_benefits:read')
    const found = state.companyBenefits.find((b) => b.uuid === (request.params as { id: string }).id)
    if (!found) throw notFound()
    return found
  })
  app.get('/v1/company_benefits/:id/employee_benefits', async (request, reply) => {
    requireScope(request, 'employee_benefits:read')
    const id = (request.params as { id: string }).id
    if (!state.companyBenefits.some((b) => b.uuid === id)) throw notFound()
    return paged(
      request,
      reply,
      state.employeeBenefits.filter((b) => b.company_benefit_uuid === id),
    )
  })

  const employee = (request: FastifyRequest) => {
    const id = (request.params as { id: string }).id
    if (!state.employees.some((e) => e.uuid === id)) throw notFound()
    return id
  }

  /** `GET /v1/employees/{employee_id}/employee_benefits` (employee_benefits:read), paged; one by id. */
  app.get('/v1/employees/:id/employee_benefits', async (request, reply) => {
    requireScope(request, 'employee_benefits:read')
    const id = employee(request)
    return paged(
      request,
      reply,
      state.employeeBenefits.filter((b) => b.employee_uuid === id),
    )
  })
  app.get('/v1/employee_benefits/:id', async (request) => {
    requireScope(request, 'employee_benefits:read')
    const found = state.employeeBenefits.find((b) => b.uuid === (request.params as { id: string }).id)
    if (!found) throw notFound()
    return found
  })

  /** `GET /v1/employees/{employee_id}/garnishments` (garnishments:read), paged; one by id. */
  app.get('/v1/employees/:id/garnishments', async (request, reply) => {
    requireScope(request, 'garnishments:read')
    const id = employee(request)
    return paged(
      request,
      reply,
      state.garnishments.filter((g) => g.employee_uuid === id),
    )
  })
  app.get('/v1/garnishments/:id', async (request) => {
    requireScope(request, 'garnishments:read')
    const found = state.garnishments.find((g) => g.uuid === (request.params as { id: string }).id)
    if (!found) throw notFound()
    return found
  })
}

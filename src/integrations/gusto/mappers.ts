import type { UnifiedRecord } from '../../models/index.js'
import type {
  GustoCompany,
  GustoCompanyBenefit,
  GustoDepartment,
  GustoEmployee,
  GustoEmployeeBenefit,
  GustoEmployeeCompensation,
  GustoGarnishment,
  GustoLocation,
  GustoPayrollSummary,
} from './types.js'

/** Gusto pays in US dollars only (a US payroll provider; every amount in its API is dollars). */
const CURRENCY = 'USD'

const text = (v: string | null | undefined): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined

/** A Gusto date (`YYYY-MM-DD`) as midnight UTC. */
export function parseGustoDate(v: string | null | undefined): Date | undefined {
  const s = text(v)
  if (!s || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined
  const at = new Date(`${s}T00:00:00Z`)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A Gusto timestamp (ISO 8601). */
export function parseGustoTime(v: string | null | undefined): Date | undefined {
  const s = text(v)
  if (!s) return undefined
  const at = new Date(s)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A decimal string or number as a number; undefined when it is neither. */
export function money(v: string | number | null | undefined): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  const s = text(v)
  if (!s || !/^-?\d+(\.\d+)?$/.test(s)) return undefined
  return Number(s)
}

/** `current_employment_status` (full_time, part_time_under_twenty_hours, part_time_twenty_plus_hours, variable, seasonal). */
const EMPLOYMENT_TYPES: Record<string, string> = {
  full_time: 'FULL_TIME',
  part_time_under_twenty_hours: 'PART_TIME',
  part_time_twenty_plus_hours: 'PART_TIME',
  seasonal: 'SEASONAL',
}

/** `payment_unit` (Hour, Week, Month, Year, Paycheck); a per-paycheck rate has no unified frequency. */
const FREQUENCIES: Record<string, string> = { Hour: 'HOUR', Week: 'WEEK', Month: 'MONTH', Year: 'YEAR' }

function primaryJob(e: GustoEmployee) {
  return e.jobs?.find((j) => j.primary) ?? e.jobs?.[0]
}

/**
 * The primary job's pay. Gusto answers a job's `rate` and `payment_unit` only to an app with
 * `compensations:read` (get-v1-employees): without it the employee has no compensation, never a wrong one.
 */
function compensationOf(e: GustoEmployee) {
  const job = primaryJob(e)
  const amount = money(job?.rate)
  if (!job || amount === undefined) return undefined
  const frequency = job.payment_unit ? FREQUENCIES[job.payment_unit] : undefined
  return [{ amount, currency: CURRENCY, ...(frequency ? { frequency } : {}), type: 'SALARY' }]
}

/** The termination with the latest effective date (a rehired employee keeps earlier ones). */
function latestTermination(e: GustoEmployee) {
  return [...(e.terminations ?? [])].sort((a, b) =>
    String(b.effective_date ?? '').localeCompare(String(a.effective_date ?? '')),
  )[0]
}

/**
 * `terminated` is true for employees who "have been or are scheduled to be terminated" (the `terminated`
 * filter of get-v1-companies-company_id-employees); a termination is `active` once it "has gone into effect"
 * (`Termination`). So an employee still working out a scheduled termination is ACTIVE.
 */
function employmentStatusOf(e: GustoEmployee): string | undefined {
  if (e.terminated === false) return 'ACTIVE'
  if (e.terminated !== true) return undefined
  const terminations = e.terminations ?? []
  if (terminations.length === 0) return 'INACTIVE'
  return terminations.some((t) => t.active !== false) ? 'INACTIVE' : 'ACTIVE'
}

export function fromGustoEmployee(e: GustoEmployee): UnifiedRecord {
  const job = primaryJob(e)
  const first = text(e.preferred_first_name) ?? text(e.first_name)
  const emails = [
    ...(text(e.work_email) ? [{ email: text(e.work_email), type: 'WORK' }] : []),
    ...(text(e.email) ? [{ email: text(e.email), type: 'HOME' }] : []),
  ]
  const termination = latestTermination(e)
  return {
    id: e.uuid,
    first_name: text(e.first_name),
    last_name: text(e.last_name),
    name: [first, text(e.last_name)].filter(Boolean).join(' ') || undefined,
    emails: emails.length > 0 ? emails : undefined,
    // Gusto's `Employee.phone` is a bare string with no kind given, so the number carries no type.
    telephones: text(e.phone) ? [{ telephone: text(e.phone) as string }] : undefined,
    date_of_birth: parseGustoDate(e.date_of_birth),
    company_id: text(e.company_uuid),
    manager_id: text(e.manager_uuid),
    employee_number: text(e.employee_code),
    title: text(e.title) ?? text(job?.title),
    employment_status: employmentStatusOf(e),
    employment_type: e.current_employment_status ? EMPLOYMENT_TYPES[e.current_employment_status] : undefined,
    hired_at: parseGustoDate(e.hired_at ?? job?.hire_date),
    terminated_at: e.terminated ? parseGustoDate(termination?.effective_date) : undefined,
    groups: text(e.department_uuid)
      ? [{ id: text(e.department_uuid), name: text(e.department), type: 'DEPARTMENT' }]
      : undefined,
    locations: text(job?.location_uuid) ? [{ id: text(job?.location_uuid) }] : undefined,
    compensation: compensationOf(e),
    currency: CURRENCY,
    raw: e,
  }
}

function addressOf(a: {
  street_1?: string
  street_2?: string | null
  city?: string
  state?: string
  zip?: string
  country?: string
}) {
  const address = {
    address1: text(a.street_1),
    address2: text(a.street_2),
    city: text(a.city),
    region_code: text(a.state),
    postal_code: text(a.zip),
    country: text(a.country),
  }
  return Object.values(address).some(Boolean) ? address : undefined
}

export function fromGustoCompany(c: GustoCompany): UnifiedRecord {
  const where = c.locations?.find((l) => l.active !== false) ?? c.locations?.[0]
  return {
    id: c.uuid,
    name: text(c.trade_name) ?? text(c.name),
    legal_name: text(c.name),
    address: where ? addressOf(where) : undefined,
    created_at: parseGustoDate(c.join_date),
    raw: c,
  }
}

export function fromGustoLocation(l: GustoLocation): UnifiedRecord {
  return {
    id: l.uuid,
    name: [text(l.street_1), text(l.city)].filter(Boolean).join(', ') || undefined,
    address: addressOf(l),
    telephones: text(l.phone_number) ? [{ telephone: text(l.phone_number), type: 'WORK' }] : undefined,
    is_active: l.active ?? (l.inactive === undefined ? undefined : !l.inactive),
    company_id: text(l.company_uuid),
    currency: CURRENCY,
    created_at: parseGustoTime(l.created_at),
    updated_at: parseGustoTime(l.updated_at),
    raw: l,
  }
}

export function fromGustoDepartment(d: GustoDepartment): UnifiedRecord {
  const users = (d.employees ?? []).map((e) => e.uuid).filter((u): u is string => typeof u === 'string')
  return {
    id: d.uuid,
    name: text(d.title),
    type: 'DEPARTMENT',
    company_id: text(d.company_uuid),
    user_ids: users,
    raw: d,
  }
}

/** A payslip is one employee's part of one payroll: its id names both, `<payroll uuid>:<employee uuid>`. */
export const payslipId = (payrollUuid: string, employeeUuid: string) => `${payrollUuid}:${employeeUuid}`

export function parsePayslipId(id: string): { payroll: string; employee: string } | undefined {
  const [payroll, employee, extra] = id.split(':')
  return payroll && employee && extra === undefined ? { payroll, employee } : undefined
}

/** Fixed compensations Gusto names (Bonus, Commission, Cash Tips, Paycheck Tips); others are EARNING. */
function fixedType(name: string | undefined): string {
  const n = (name ?? '').toLowerCase()
  if (n.includes('bonus')) return 'EARNING_BONUS'
  if (n.includes('commission')) return 'EARNING_COMMISSION'
  if (n.includes('tip')) return 'EARNING_TIP'
  return 'EARNING'
}

/** Hourly compensations: Regular Hours, Overtime, Double overtime. */
const hourlyType = (name: string | undefined) =>
  /overtime/i.test(name ?? '')
    ? 'EARNING_OVERTIME'
    : /regular/i.test(name ?? '')
      ? 'EARNING_SALARY'
      : 'EARNING'

/**
 * Gusto names a tax in `employee_compensations[].taxes[].name`; its OpenAPI examples
 * (Gusto/gusto-typescript-client@1fa8f82:.speakeasy/logs/changes/new.openapi.yaml) show "Federal Income Tax",
 * "Social Security", "Medicare", "Additional Medicare", "FUTA" (federal), "CA State Income Tax", "TX SUTA"
 * (a state's code, then a statewide tax) and "NY MCTMT", "MO Compensation Deduction" (neither plainly state
 * nor local). A type is given only where the name says which government levies the tax; others get none.
 */
const FEDERAL_TAX = /^(federal\b.*|social security|medicare|additional medicare|futa)$/i
const STATE_TAX =
  /^[A-Z]{2} (state income tax|pit|suta|sui|sdi|ett|state unemployment( tax)?|state disability( insurance)?)$/i
const LOCAL_TAX = /\b(local|city|county|municipal|school district)\b/i

function taxType(name: string): string | undefined {
  if (FEDERAL_TAX.test(name)) return 'TAX_FEDERAL'
  if (STATE_TAX.test(name)) return 'TAX_REGION'
  if (LOCAL_TAX.test(name)) return 'TAX_LOCAL'
  return undefined
}

/**
 * A line's `amount` is what the employee received or paid (the SDK requires it: `HrisPayslipDetail.amount`
 * is a number), so summing `amount` over tax or deduction lines is what was withheld. What the company paid
 * on top (an employer tax, a benefit contribution) is `company_amount` only: an employer-only line has
 * `amount` 0.
 */
function detailsOf(c: GustoEmployeeCompensation) {
  const out: Record<string, unknown>[] = []
  const add = (entry: Record<string, unknown>) => {
    const paid = typeof entry.amount === 'number' && entry.amount !== 0
    const contributed = typeof entry.company_amount === 'number' && entry.company_amount !== 0
    if (paid || contributed) out.push(entry)
  }
  for (const f of c.fixed_compensations ?? [])
    add({ name: f.name, amount: money(f.amount), type: fixedType(f.name) })
  for (const h of c.hourly_compensations ?? [])
    add({ name: h.name, amount: money(h.amount), type: hourlyType(h.name) })
  for (const r of c.reimbursements ?? [])
    add({ name: text(r.description) ?? 'Reimbursement', amount: money(r.amount), type: 'REIMBURSEMENT' })
  for (const t of c.taxes ?? []) {
    const amount = money(t.amount)
    if (amount === undefined) continue
    const type = taxType(t.name)
    // `employer`: "Whether this tax is an employer or employee tax" (Payroll-Company-Taxes-Type).
    add({
      name: t.name,
      ...(t.employer ? { amount: 0, company_amount: amount } : { amount, employee_amount: amount }),
      ...(type ? { type } : {}),
    })
  }
  // Benefits and deductions carry no pre- or post-tax mark here: they get a name and no type.
  for (const b of c.benefits ?? []) {
    const employee = money(b.employee_deduction) ?? 0
    const company = money(b.company_contribution) ?? 0
    add({
      name: b.name,
      amount: employee,
      ...(employee !== 0 ? { employee_amount: employee } : {}),
      ...(company !== 0 ? { company_amount: company } : {}),
    })
  }
  for (const d of c.deductions ?? []) add({ name: d.name, amount: money(d.amount) })
  return out
}

const PAYMENT_TYPES: Record<string, string> = { 'Direct Deposit': 'DIRECT', Check: 'CHEQUE' }

/**
 * One employee's compensation in a processed payroll. `updated_at` is the day Gusto processed the payroll
 * (it gives the date only), after which a payslip no longer changes.
 */
export function fromGustoPayslip(p: GustoPayrollSummary, c: GustoEmployeeCompensation): UnifiedRecord {
  const payroll = p.payroll_uuid ?? p.uuid
  return {
    id: payslipId(String(payroll), c.employee_uuid),
    user_id: c.employee_uuid,
    company_id: text(p.company_uuid),
    start_at: parseGustoDate(p.pay_period?.start_date),
    end_at: parseGustoDate(p.pay_period?.end_date),
    paid_at: parseGustoDate(p.check_date),
    gross_amount: money(c.gross_pay),
    net_amount: money(c.net_pay),
    currency: CURRENCY,
    payment_type: c.payment_method ? PAYMENT_TYPES[c.payment_method] : undefined,
    details: detailsOf(c),
    created_at: parseGustoTime(p.created_at),
    updated_at: parseGustoDate(p.processed_date),
    raw: { payroll: p, employee_compensation: c },
  }
}

/**
 * Gusto's benefit types (`benefit_type`, the ids of `GET /v1/benefits`, as the `Supported-Benefit`
 * examples of Gusto's OpenAPI list them) onto unified types and tax treatment.
 */
const BENEFIT_TYPES: Record<number, { type: string; tax?: string }> = {
  1: { type: 'HEALTH', tax: 'PRE_TAX' },
  2: { type: 'DENTAL', tax: 'PRE_TAX' },
  3: { type: 'VISION', tax: 'PRE_TAX' },
  6: { type: 'HSA', tax: 'PRE_TAX' },
  7: { type: 'FSA', tax: 'PRE_TAX' },
  11: { type: 'FSA', tax: 'PRE_TAX' },
  5: { type: 'RETIREMENT', tax: 'PRE_TAX' },
  8: { type: 'RETIREMENT', tax: 'PRE_TAX' },
  9: { type: 'RETIREMENT', tax: 'PRE_TAX' },
  105: { type: 'RETIREMENT', tax: 'POST_TAX' },
  110: { type: 'RETIREMENT', tax: 'POST_TAX' },
  108: { type: 'RETIREMENT', tax: 'PRE_TAX' },
  109: { type: 'RETIREMENT', tax: 'PRE_TAX' },
  107: { type: 'LIFE' },
  993: { type: 'LIFE', tax: 'POST_TAX' },
  996: { type: 'SHORT_TERM_DISABILITY', tax: 'PRE_TAX' },
  998: { type: 'SHORT_TERM_DISABILITY', tax: 'POST_TAX' },
  991: { type: 'SHORT_TERM_DISABILITY', tax: 'POST_TAX' },
  997: { type: 'LONG_TERM_DISABILITY', tax: 'PRE_TAX' },
  999: { type: 'LONG_TERM_DISABILITY', tax: 'POST_TAX' },
  992: { type: 'LONG_TERM_DISABILITY', tax: 'POST_TAX' },
  112: { type: 'LOAN_REPAYMENT' },
  10: { type: 'OTHER', tax: 'PRE_TAX' },
  113: { type: 'OTHER', tax: 'PRE_TAX' },
  114: { type: 'OTHER', tax: 'PRE_TAX' },
  106: { type: 'OTHER' },
  111: { type: 'OTHER' },
}

export function fromGustoCompanyBenefit(b: GustoCompanyBenefit): UnifiedRecord {
  const known = b.benefit_type === undefined ? undefined : BENEFIT_TYPES[b.benefit_type]
  return {
    id: b.uuid,
    name: text(b.description),
    type: known?.type,
    tax: known?.tax,
    is_active: b.active,
    company_id: text(b.company_uuid),
    currency: CURRENCY,
    raw: b,
  }
}

/** An employee's enrollment in a company benefit is a deduction from their pay for that benefit. */
export function fromGustoEmployeeBenefit(b: GustoEmployeeBenefit, companyId: string): UnifiedRecord {
  return {
    id: b.uuid,
    user_id: text(b.employee_uuid),
    benefit_id: text(b.company_benefit_uuid),
    company_id: companyId,
    amount: money(b.employee_deduction),
    type: b.deduct_as_percentage === undefined ? undefined : b.deduct_as_percentage ? 'PERCENTAGE' : 'FIXED',
    is_active: b.active,
    start_at: parseGustoDate(b.effective_date),
    end_at: parseGustoDate(b.expiration_date),
    raw: b,
  }
}

/** A garnishment (child support, a levy, a voluntary deduction) is a deduction without a benefit. */
export function fromGustoGarnishment(g: GustoGarnishment, companyId: string): UnifiedRecord {
  return {
    id: g.uuid,
    user_id: text(g.employee_uuid),
    company_id: companyId,
    amount: money(g.amount),
    type: g.deduct_as_percentage === undefined ? undefined : g.deduct_as_percentage ? 'PERCENTAGE' : 'FIXED',
    is_active: g.active,
    notes: text(g.description),
    frequency: g.recurring === false && g.times === 1 ? 'ONE_TIME' : undefined,
    raw: g,
  }
}

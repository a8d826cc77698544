/**
 * Gusto API shapes (API version 2025-06-15), as Gusto's OpenAPI description has them
 * (Gusto/gusto-typescript-client@1fa8f82cfc47d70873cf22d57b14691e29879b2f:.speakeasy/logs/changes/new.openapi.yaml).
 * Money is a decimal string (`"1234.56"`) except in payroll employee compensations, where it is a number.
 */

export type GustoCompanyAddress = {
  street_1?: string
  street_2?: string | null
  city?: string
  state?: string
  zip?: string
  country?: string
  active?: boolean
}

/** `GET /v1/companies/{company_id}` (`Company`). */
export type GustoCompany = {
  uuid: string
  name?: string
  trade_name?: string | null
  ein?: string
  join_date?: string | null
  locations?: GustoCompanyAddress[]
  [key: string]: unknown
}

export type GustoCompensation = { rate?: string; payment_unit?: string; effective_date?: string }

export type GustoJob = {
  uuid: string
  title?: string | null
  primary?: boolean
  hire_date?: string
  rate?: string
  payment_unit?: string | null
  location_uuid?: string
  compensations?: GustoCompensation[]
}

/** `Employee`. */
export type GustoEmployee = {
  uuid: string
  first_name: string
  last_name: string
  middle_initial?: string | null
  preferred_first_name?: string | null
  email?: string | null
  work_email?: string | null
  phone?: string | null
  company_uuid?: string
  manager_uuid?: string | null
  department?: string | null
  department_uuid?: string | null
  terminated?: boolean
  terminations?: { effective_date?: string; active?: boolean }[]
  date_of_birth?: string | null
  current_employment_status?: string | null
  employee_code?: string
  title?: string
  hired_at?: string
  jobs?: GustoJob[]
  [key: string]: unknown
}

/** `Location`. */
export type GustoLocation = GustoCompanyAddress & {
  uuid: string
  company_uuid?: string
  phone_number?: string
  mailing_address?: boolean
  filing_address?: boolean
  created_at?: string
  updated_at?: string
  [key: string]: unknown
}

/** `Department`. */
export type GustoDepartment = {
  uuid: string
  company_uuid?: string
  title?: string
  employees?: { uuid?: string }[]
  contractors?: { uuid?: string }[]
  [key: string]: unknown
}

/** A payroll as `GET /v1/companies/{company_id}/payrolls` lists it (`Payroll-Minimal`). */
export type GustoPayrollSummary = {
  payroll_uuid: string
  uuid?: string
  company_uuid?: string
  processed?: boolean
  processed_date?: string | null
  check_date?: string
  created_at?: string
  off_cycle?: boolean
  pay_period?: { start_date?: string; end_date?: string; pay_schedule_uuid?: string | null }
  [key: string]: unknown
}

type Named = { name?: string; amount?: string | number }

/** One employee's lines in a processed payroll (`Payroll-Employee-Compensations-Type` with `include`). */
export type GustoEmployeeCompensation = {
  employee_uuid: string
  excluded?: boolean
  gross_pay?: number | null
  net_pay?: number | null
  check_amount?: number | null
  payment_method?: string | null
  fixed_compensations?: Named[]
  hourly_compensations?: (Named & { hours?: string })[]
  reimbursements?: { amount?: string; description?: string | null }[]
  deductions?: Named[]
  taxes?: { name: string; employer: boolean; amount: number }[]
  benefits?: {
    name?: string
    employee_deduction?: number
    company_contribution?: number
    imputed?: boolean
  }[]
  [key: string]: unknown
}

/** `GET /v1/companies/{company_id}/payrolls/{payroll_id}` (`Payroll`). */
export type GustoPayroll = GustoPayrollSummary & { employee_compensations?: GustoEmployeeCompensation[] }

/** `Company-Benefit`. */
export type GustoCompanyBenefit = {
  uuid: string
  company_uuid?: string
  benefit_type?: number
  active?: boolean
  description?: string
  [key: string]: unknown
}

/** `Employee-Benefit`. */
export type GustoEmployeeBenefit = {
  uuid: string
  employee_uuid?: string
  company_benefit_uuid?: string
  active?: boolean
  employee_deduction?: string
  deduct_as_percentage?: boolean
  company_contribution?: string
  effective_date?: string | null
  expiration_date?: string | null
  [key: string]: unknown
}

/** `Garnishment`. */
export type GustoGarnishment = {
  uuid: string
  employee_uuid?: string
  active?: boolean
  amount?: string
  description?: string
  recurring?: boolean
  times?: number | null
  deduct_as_percentage?: boolean
  [key: string]: unknown
}

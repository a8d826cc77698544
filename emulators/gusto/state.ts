import { DAY_MS, hash32, SeededRandom, uuidV4 } from '../kit/index.js'

type Json = Record<string, unknown>

export interface GustoEmployeeRecord {
  uuid: string
  first_name: string
  last_name: string
  email: string | null
  work_email: string | null
  phone: string | null
  manager_uuid: string | null
  department_uuid: string | null
  terminatedOn: string | null
  date_of_birth: string
  current_employment_status: string
  employee_code: string
  hired_at: string
  title: string
  locationUuid: string
  rate: string
  payment_unit: 'Hour' | 'Year'
  payment_method: 'Direct Deposit' | 'Check'
}

export interface PayrollRecord {
  uuid: string
  checkDate: string
  periodStart: string
  periodEnd: string
  processed: boolean
  processedDate: string | null
  createdAt: string
  offCycle: boolean
  compensations: Json[]
}

export interface GustoStateOptions {
  readonly seed: number
  readonly employees: number
  /** The last day payrolls are processed up to (YYYY-MM-DD); payrolls are seeded every 14 days before it. */
  readonly until: string
  /** Days of history before `until` (the company's join date). */
  readonly historyDays: number
}

const FIRST = [
  'Boaty',
  'Ada',
  'Grace',
  'Linus',
  'Mae',
  'Otto',
  'Rosa',
  'Ines',
  'Tomas',
  'Yara',
  'Kofi',
  'Wen',
]
const LAST = [
  'Koss',
  'Lovelace',
  'Hopper',
  'Nakamura',
  'Jemison',
  'Berg',
  'Parks',
  'Silva',
  'Novak',
  'Haddad',
]
const STATUSES = [
  'full_time',
  'part_time_twenty_plus_hours',
  'part_time_under_twenty_hours',
  'variable',
  'seasonal',
]

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`
const cents = (n: number) => (Math.round(n * 100) / 100).toFixed(2)

/** One emulated Gusto company with its people, places, benefits and payroll history. */
export class GustoState {
  readonly company: Json
  readonly companyUuid: string
  readonly employees: GustoEmployeeRecord[] = []
  readonly locations: Json[] = []
  readonly departments: Json[] = []
  readonly companyBenefits: Json[] = []
  readonly employeeBenefits: Json[] = []
  readonly garnishments: Json[] = []
  readonly payrolls: PayrollRecord[] = []
  private readonly random: SeededRandom

  constructor(readonly options: GustoStateOptions) {
    this.random = new SeededRandom(hash32(options.seed, 0x6057))
    const r = this.random
    const untilMs = Date.parse(`${options.until}T00:00:00Z`)
    const joined = untilMs - options.historyDays * DAY_MS
    this.companyUuid = uuidV4(r)
    for (const [street, city, state, zip] of [
      ['525 20th St', 'San Francisco', 'CA', '94107'],
      ['1201 3rd Ave', 'Seattle', 'WA', '98101'],
      ['90 Broad St', 'New York', 'NY', '10004'],
    ] as const) {
      this.locations.push({
        uuid: uuidV4(r),
        version: uuidV4(r).replace(/-/g, ''),
        company_uuid: this.companyUuid,
        phone_number: `415555${r.int(1000, 9999)}`,
        street_1: street,
        street_2: null,
        city,
        state,
        zip,
        country: 'USA',
        mailing_address: city === 'San Francisco',
        filing_address: city === 'San Francisco',
        created_at: stamp(joined),
        updated_at: stamp(joined + r.int(1, 300) * DAY_MS),
        active: city !== 'New York',
      })
    }
    this.company = {
      uuid: this.companyUuid,
      name: 'Emulated Payroll, LLC',
      trade_name: 'Emulated Payroll',
      ein: '00-0000001',
      entity_type: 'LLC',
      company_status: 'Approved',
      join_date: day(joined),
      is_suspended: false,
      contractor_only: false,
      locations: this.locations.map(({ street_1, street_2, city, state, zip, country, active }) => ({
        street_1,
        street_2,
        city,
        state,
        zip,
        country,
        active,
        inactive: !active,
      })),
    }
    const departmentUuids = ['Engineering', 'Sales', 'Operations'].map((title) => {
      const uuid = uuidV4(r)
      this.departments.push({
        uuid,
        company_uuid: this.companyUuid,
        title,
        version: uuidV4(r),
        employees: [],
        contractors: [],
      })
      return uuid
    })
    for (let i = 0; i < options.employees; i++) {
      const hired = joined + r.int(0, Math.max(1, options.historyDays - 30)) * DAY_MS
      // The second employee has a termination scheduled a month ahead: still working, not yet inactive.
      const terminated =
        i === 1
          ? untilMs + 30 * DAY_MS
          : i > 1 && r.chance(0.15)
            ? Math.min(untilMs - DAY_MS, hired + r.int(60, 200) * DAY_MS)
            : null
      const hourly = r.chance(0.3)
      const first = FIRST[i % FIRST.length] as string
      const last = LAST[(i * 3) % LAST.length] as string
      const department = r.chance(0.85) ? (r.pick(departmentUuids) as string) : null
      const employee: GustoEmployeeRecord = {
        uuid: uuidV4(r),
        first_name: first,
        last_name: last,
        email: `${first}.${last}${i}@personal.example`.toLowerCase(),
        work_email: r.chance(0.8) ? `${first}${i}@emulated-payroll.example`.toLowerCase() : null,
        phone: r.chance(0.6) ? `206555${r.int(1000, 9999)}` : null,
        manager_uuid: i === 0 ? null : (this.employees[Math.floor((i - 1) / 4)]?.uuid ?? null),
        department_uuid: department,
        terminatedOn: terminated === null || terminated <= hired ? null : day(terminated),
        date_of_birth: day(Date.UTC(1965 + r.int(0, 35), r.int(0, 11), r.int(1, 28))),
        current_employment_status: r.pick(STATUSES),
        employee_code: uuidV4(r).slice(0, 6),
        hired_at: day(hired),
        title: r.pick(['Engineer', 'Account Executive', 'Operations Lead', 'Designer']),
        locationUuid: String(r.pick(this.locations.filter((l) => l.active)).uuid),
        rate: hourly ? cents(r.int(20, 65)) : cents(r.int(60, 180) * 1000),
        payment_unit: hourly ? 'Hour' : 'Year',
        payment_method: r.chance(0.9) ? 'Direct Deposit' : 'Check',
      }
      this.employees.push(employee)
      if (department) {
        const d = this.departments.find((x) => x.uuid === department) as { employees: { uuid: string }[] }
        d.employees.push({ uuid: employee.uuid })
      }
    }
    this.seedBenefits(joined)
    this.seedPayrolls(joined, untilMs)
  }

  private seedBenefits(joined: number): void {
    const r = this.random.fork(2)
    for (const [type, description] of [
      [1, 'Blue Shield PPO'],
      [2, 'Delta Dental'],
      [5, '401(k) with Guideline'],
      [999, 'Long Term Disability (post-tax)'],
    ] as const) {
      this.companyBenefits.push({
        uuid: uuidV4(r),
        version: uuidV4(r).replace(/-/g, ''),
        company_uuid: this.companyUuid,
        benefit_type: type,
        active: true,
        description,
        source: 'internal',
        partner_name: null,
        deletable: false,
        supports_percentage_amounts: type === 5,
      })
    }
    for (const e of this.employees) {
      for (const b of this.companyBenefits) {
        if (!r.chance(0.5)) continue
        const percent = b.benefit_type === 5
        this.employeeBenefits.push({
          uuid: uuidV4(r),
          version: uuidV4(r).replace(/-/g, ''),
          employee_uuid: e.uuid,
          company_benefit_uuid: b.uuid,
          active: e.terminatedOn === null || e.terminatedOn > this.options.until,
          employee_deduction: percent ? cents(r.int(2, 8)) : cents(r.int(20, 300)),
          deduct_as_percentage: percent,
          company_contribution: cents(r.int(0, 200)),
          contribute_as_percentage: false,
          effective_date: day(Math.max(joined, Date.parse(`${e.hired_at}T00:00:00Z`))),
          expiration_date: e.terminatedOn,
          catch_up: false,
          elective: false,
        })
      }
      if (r.chance(0.2)) {
        this.garnishments.push({
          uuid: uuidV4(r),
          version: uuidV4(r).replace(/-/g, ''),
          employee_uuid: e.uuid,
          active: true,
          amount: cents(r.int(50, 400)),
          description: r.pick(['Child support', 'Tax levy', 'Student loan']),
          court_ordered: true,
          times: null,
          recurring: true,
          annual_maximum: null,
          total_amount: null,
          pay_period_maximum: null,
          deduct_as_percentage: false,
          garnishment_type: null,
        })
      }
    }
  }

  /** Biweekly regular payrolls from two weeks after joining, processed 3 days before their check date. */
  private seedPayrolls(joined: number, untilMs: number): void {
    const r = this.random.fork(3)
    for (let check = joined + 14 * DAY_MS; check <= untilMs + 14 * DAY_MS; check += 14 * DAY_MS) {
      const processed = check - 3 * DAY_MS <= untilMs
      const paid = this.employees.filter(
        (e) =>
          e.hired_at <= day(check) && (e.terminatedOn === null || e.terminatedOn >= day(check - 14 * DAY_MS)),
      )
      this.payrolls.push({
        uuid: uuidV4(r),
        checkDate: day(check),
        periodStart: day(check - 18 * DAY_MS),
        periodEnd: day(check - 5 * DAY_MS),
        processed,
        processedDate: processed ? day(check - 3 * DAY_MS) : null,
        createdAt: stamp(check - 10 * DAY_MS),
        offCycle: false,
        compensations: paid.map((e) => this.compensation(e, r, processed)),
      })
    }
    this.seedCorrection(untilMs, r)
  }

  /**
   * An off-cycle correction payroll processed days ago for an old pay period (the fifth regular one): Gusto
   * chooses off-cycle payrolls by pay period even with `date_filter_by=check_date`, so a reader looking for
   * recently processed payrolls by check date alone misses it.
   */
  private seedCorrection(untilMs: number, r: SeededRandom): void {
    const old = this.payrolls[4]
    if (!old?.processed) return
    const check = untilMs - 2 * DAY_MS
    this.payrolls.push({
      uuid: uuidV4(r),
      checkDate: day(check),
      periodStart: old.periodStart,
      periodEnd: old.periodEnd,
      processed: true,
      processedDate: day(check - 2 * DAY_MS),
      createdAt: stamp(check - 3 * DAY_MS),
      offCycle: true,
      compensations: old.compensations.slice(0, 3).map((c) => {
        const e = this.employees.find((x) => x.uuid === c.employee_uuid) as GustoEmployeeRecord
        return this.compensation(e, r, true)
      }),
    })
  }

  private compensation(e: GustoEmployeeRecord, r: SeededRandom, processed: boolean): Json {
    const hours = e.payment_unit === 'Hour' ? r.int(60, 88) : 80
    const regular = e.payment_unit === 'Hour' ? Number(e.rate) * hours : Number(e.rate) / 26
    const overtime = e.payment_unit === 'Hour' && r.chance(0.3) ? Number(e.rate) * 1.5 * r.int(1, 6) : 0
    const bonus = r.chance(0.1) ? r.int(100, 1000) : 0
    const gross = regular + overtime + bonus
    const federal = gross * 0.12
    const fica = gross * 0.0765
    const state = gross * 0.04
    const benefits = this.employeeBenefits
      .filter((b) => b.employee_uuid === e.uuid)
      .map((b) => {
        const plan = this.companyBenefits.find((c) => c.uuid === b.company_benefit_uuid)
        const amount = b.deduct_as_percentage
          ? (gross * Number(b.employee_deduction)) / 100
          : Number(b.employee_deduction)
        return {
          name: String(plan?.description),
          employee_deduction: Number(cents(amount)),
          company_contribution: Number(b.company_contribution),
          imputed: false,
        }
      })
    const garnished = this.garnishments
      .filter((g) => g.employee_uuid === e.uuid)
      .map((g) => ({ name: String(g.description), amount: Number(g.amount) }))
    const withheld =
      federal +
      fica +
      state +
      benefits.reduce((n, b) => n + b.employee_deduction, 0) +
      garnished.reduce((n, g) => n + g.amount, 0)
    return {
      employee_uuid: e.uuid,
      excluded: false,
      first_name: e.first_name,
      preferred_first_name: null,
      last_name: e.last_name,
      gross_pay: processed ? Number(cents(gross)) : null,
      net_pay: processed ? Number(cents(gross - withheld)) : null,
      check_amount: processed ? Number(cents(gross - withheld)) : null,
      payment_method: e.payment_method,
      memo: null,
      fixed_compensations: bonus > 0 ? [{ name: 'Bonus', amount: cents(bonus), job_uuid: e.uuid }] : [],
      hourly_compensations: [
        {
          name: 'Regular Hours',
          hours: hours.toFixed(3),
          amount: cents(regular),
          compensation_multiplier: 1,
        },
        ...(overtime > 0
          ? [{ name: 'Overtime', hours: '2.000', amount: cents(overtime), compensation_multiplier: 1.5 }]
          : []),
      ],
      paid_time_off: [],
      reimbursements: r.chance(0.1) ? [{ amount: cents(r.int(10, 120)), description: 'Home office' }] : [],
      deductions: garnished,
      // Employer and employee taxes side by side, told apart by `employer` ("An array of employer and
      // employee taxes for the pay period", Payroll-Employee-Compensations-Included), under the names of
      // Gusto's examples (get-v1-payrolls-payroll_uuid, post-v1-companies-company_id-payrolls: "Federal
      // Income Tax", "Social Security", "Medicare", "FUTA", "CA State Income Tax"),
      // Gusto/gusto-typescript-client@1fa8f82cfc47d70873cf22d57b14691e29879b2f:.speakeasy/logs/changes/new.openapi.yaml.
      // Only the employee's (`employer: false`) come out of net pay.
      taxes: [
        { name: 'Federal Income Tax', employer: false, amount: Number(cents(federal)) },
        { name: 'Social Security', employer: false, amount: Number(cents(gross * 0.062)) },
        { name: 'Medicare', employer: false, amount: Number(cents(gross * 0.0145)) },
        { name: 'Social Security', employer: true, amount: Number(cents(gross * 0.062)) },
        { name: 'Medicare', employer: true, amount: Number(cents(gross * 0.0145)) },
        { name: 'FUTA', employer: true, amount: Number(cents(gross * 0.006)) },
        { name: 'CA State Income Tax', employer: false, amount: Number(cents(state)) },
      ],
      benefits,
    }
  }

  /**
   * The employee as `GET /v1/employees/{id}` answers it (`Employee`) to a caller with these scopes. A job's
   * `rate`, `payment_unit`, `current_compensation_uuid` and `compensations` "are only returned when the
   * `compensations:read` scope is included" (get-v1-companies-company_id-employees and get-v1-employees,
   * Gusto/gusto-typescript-client@1fa8f82cfc47d70873cf22d57b14691e29879b2f:.speakeasy/logs/changes/new.openapi.yaml).
   */
  employeeJson(e: GustoEmployeeRecord, scopes: readonly string[]): Json {
    const department = this.departments.find((d) => d.uuid === e.department_uuid)
    const location = this.locations.find((l) => l.uuid === e.locationUuid)
    return {
      uuid: e.uuid,
      first_name: e.first_name,
      middle_initial: null,
      last_name: e.last_name,
      email: e.email,
      company_uuid: this.companyUuid,
      manager_uuid: e.manager_uuid,
      version: e.uuid.replace(/-/g, '').slice(0, 32),
      department: department ? department.title : null,
      department_uuid: e.department_uuid,
      // `terminated` covers employees who "have been or are scheduled to be terminated" (the `terminated`
      // filter of get-v1-companies-company_id-employees); a termination is `active` once it "has gone into
      // effect" (`Termination`), so a scheduled one is terminated: true with an inactive termination.
      terminated: e.terminatedOn !== null,
      terminations: e.terminatedOn
        ? [
            {
              uuid: `${e.uuid.slice(0, 30)}aaaaaa`,
              employee_uuid: e.uuid,
              active: e.terminatedOn <= this.options.until,
              cancelable: e.terminatedOn > this.options.until,
              effective_date: e.terminatedOn,
              run_termination_payroll: false,
            },
          ]
        : [],
      two_percent_shareholder: false,
      work_email: e.work_email,
      onboarded: true,
      onboarding_status: 'onboarding_completed',
      date_of_birth: e.date_of_birth,
      has_ssn: true,
      ssn: '',
      phone: e.phone,
      preferred_first_name: null,
      payment_method: e.payment_method,
      current_employment_status: e.current_employment_status,
      historical: false,
      employee_code: e.employee_code,
      title: e.title,
      hired_at: e.hired_at,
      jobs: [
        {
          uuid: `${e.uuid.slice(0, 30)}bbbbbb`,
          employee_uuid: e.uuid,
          hire_date: e.hired_at,
          title: e.title,
          primary: true,
          location_uuid: e.locationUuid,
          location,
          ...(scopes.includes('compensations:read')
            ? {
                rate: e.rate,
                payment_unit: e.payment_unit,
                current_compensation_uuid: `${e.uuid.slice(0, 30)}cccccc`,
                compensations: [
                  {
                    uuid: `${e.uuid.slice(0, 30)}cccccc`,
                    rate: e.rate,
                    payment_unit: e.payment_unit,
                    effective_date: e.hired_at,
                  },
                ],
              }
            : {}),
        },
      ],
      garnishments: this.garnishments.filter((g) => g.employee_uuid === e.uuid),
    }
  }

  /** A payroll as the list answers it (`Payroll-Minimal`): no employee compensations. */
  payrollSummary(p: PayrollRecord): Json {
    return {
      uuid: p.uuid,
      payroll_uuid: p.uuid,
      company_uuid: this.companyUuid,
      off_cycle: p.offCycle,
      off_cycle_reason: p.offCycle ? 'Correction' : null,
      auto_pilot: false,
      processed: p.processed,
      processed_date: p.processedDate,
      calculated_at: p.processed ? `${p.processedDate}T16:00:00Z` : null,
      check_date: p.checkDate,
      external: false,
      pay_period: { start_date: p.periodStart, end_date: p.periodEnd, pay_schedule_uuid: null },
      created_at: p.createdAt,
    }
  }
}

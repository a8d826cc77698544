import { DAY_MS, hash32, SeededRandom } from '../kit/index.js'
import { BamboohrHooks, type EmployeeAction } from './hooks.js'

/** One employee: BambooHR field name to value, as the API prints it (strings; `null` for never set). */
export type EmployeeRecord = { id: number; fields: Record<string, string | null> }

export interface ListOption {
  id: number
  name: string
  archived: 'yes' | 'no'
  createdDate: string | null
  archivedDate: string | null
}

/**
 * A list field as `GET /v1/meta/lists` prints it (`ListFieldDetail`): `fieldId` is a string ("The field ID",
 * `type: string`), the options' `id` a number (`ListFieldOption`, `type: integer`)
 * (BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml).
 */
export interface ListField {
  fieldId: string
  alias: string
  name: string
  manageable: 'yes' | 'no'
  multiple: 'yes' | 'no'
  options: ListOption[]
}

export interface BenefitPlan {
  id: string
  name: string
  type: string
  benefitVendorId: string | null
  deductionTypeId: string | null
  companyDeductionId: string | null
  startDate: string | null
  endDate: string | null
  allowsCatchUp: boolean | null
}

export interface BamboohrStateOptions {
  readonly seed: number
  readonly employees: number
  readonly domain: string
  readonly apiKeys: readonly string[]
  readonly untilMs: number
  /** Lets webhooks use http:// addresses (BambooHR takes https:// only): tests on one machine have no certificate. */
  readonly insecureHookUrls?: boolean
  /** Delays before each retry of a call answered 5xx (default BambooHR's 5, 10, 20, 40 and 80 minutes). */
  readonly hookRetryDelaysMs?: readonly number[]
  /** Employees the keys' user may not see (its access level leaves them out); see `hideEmployee`. */
  readonly hiddenEmployees?: readonly number[]
  /**
   * Fields the keys' user may not read, besides `ssn` (an access level without, say, compensation): left out
   * of reports and employee reads, not monitorable or postable by its webhooks (see `restricted`).
   */
  readonly restrictedFields?: readonly string[]
}

/** Fields an API key's user may never read here (sensitive ones need more access). */
export const RESTRICTED_FIELDS: ReadonlySet<string> = new Set(['ssn'])
/** Fields BambooHR computes rather than stores: readable and postable, never monitored. */
const COMPUTED_FIELDS: ReadonlySet<string> = new Set(['lastChanged', 'photoUrl', 'displayName'])

const FIRST = [
  'Ava',
  'Sam',
  'Lena',
  'Marco',
  'Priya',
  'Kenji',
  'Dana',
  'Omar',
  'Julia',
  'Felipe',
  'Noor',
  'Ezra',
]
const LAST = ['Nguyen', 'Park', 'Smith', 'Lee', 'Natarajan', 'Watanabe', 'Fox', 'Haddad', 'Rossi', 'Araya']
const TITLES = [
  'Software Engineer',
  'Account Executive',
  'Designer',
  'Support Specialist',
  'Engineering Manager',
]
const STATUSES = ['Full-Time', 'Part-Time', 'Contractor', 'Intern']

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
/** Timestamps print with an explicit offset (`2024-05-01T10:00:00+00:00`), as BambooHR's ISO 8601 values do. */
export const timestamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`

/** A list field and its options; option ids continue one sequence across lists, as one account's would. */
class Lists {
  private nextOption = 1
  readonly fields: ListField[] = []

  add(fieldId: number, alias: string, name: string, values: readonly (string | [string, 'archived'])[]) {
    const options = values.map((v) => {
      const [label, archived] = Array.isArray(v) ? v : [v, undefined]
      return {
        id: this.nextOption++,
        name: label,
        archived: archived ? ('yes' as const) : ('no' as const),
        createdDate: '2019-03-01T12:00:00+00:00',
        archivedDate: archived ? '2023-01-15T12:00:00+00:00' : null,
      }
    })
    this.fields.push({ fieldId: String(fieldId), alias, name, manageable: 'yes', multiple: 'no', options })
  }
}

/** An emulated BambooHR account: one company, its employees, list fields and benefit plans. */
export class BamboohrState {
  readonly apiKeys: Set<string>
  readonly employees = new Map<number, EmployeeRecord>()
  /** Employees outside the keys' user's access level (see `hideEmployee`). */
  readonly hidden: Set<number>
  /**
   * Fields the keys' user may not read: "The permissions of the user associated with the API request will
   * determine which fields and employees each API request is allowed to access"
   * (https://documentation.bamboohr.com/docs/getting-started, "Authentication"). Reports and employee reads leave
   * them out ("silently omitted", request-custom-report; "omitted", get-employee in
   * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml), `monitor_fields` and
   * `post-fields` do not offer them, and a webhook naming one is a 403 listing it (create-webhook).
   */
  readonly restricted: ReadonlySet<string>
  /** Each field's id, as `meta/fields` and the Webhooks API number them (assigned in first-seen order). */
  private readonly fieldIds = new Map<string, number>()
  readonly hooks: BamboohrHooks
  readonly lists: ListField[]
  readonly benefits: BenefitPlan[]
  readonly company = {
    legalName: 'Acme Widgets, Inc.',
    displayName: 'Acme Widgets',
    address: { line1: '335 S 560 W', line2: 'Suite 200', city: 'Lindon', state: 'UT', zip: '84042' },
    phone: '801-555-0100',
  }

  constructor(readonly options: BamboohrStateOptions) {
    this.apiKeys = new Set(options.apiKeys)
    this.hidden = new Set(options.hiddenEmployees ?? [])
    this.restricted = new Set([...RESTRICTED_FIELDS, ...(options.restrictedFields ?? [])])
    this.hooks = new BamboohrHooks(options.domain, options.hookRetryDelaysMs)
    const lists = new Lists()
    // Stock list fields with their usual ids; the connector must find them by alias, not position.
    lists.add(16, 'employmentHistoryStatus', 'Employment Status', STATUSES)
    lists.add(4, 'department', 'Department', ['Engineering', 'Sales', 'Support', ['Legacy Ops', 'archived']])
    lists.add(1355, 'division', 'Division', ['North America', 'Europe'])
    lists.add(91, 'location', 'Location', ['Lindon, Utah', 'Berlin', 'Remote', ['Old Office', 'archived']])
    this.lists = lists.fields
    this.benefits = [
      plan('1', 'Medical PPO', 'health', '2023-01-01', null),
      plan('2', 'Dental Plus', 'dental', '2023-01-01', null),
      plan('3', '401(k)', 'retirement', '2022-01-01', null),
      plan('4', 'Long Term Disability', 'disability', '2021-01-01', '2023-12-31'),
    ]
    this.seed()
  }

  private optionNames(alias: string) {
    return (this.lists.find((l) => l.alias === alias)?.options ?? [])
      .filter((o) => o.archived === 'no')
      .map((o) => o.name)
  }

  private seed(): void {
    const r = new SeededRandom(hash32(this.options.seed, 0xba3b))
    const departments = this.optionNames('department')
    const divisions = this.optionNames('division')
    const locations = this.optionNames('location')
    for (let i = 0; i < this.options.employees; i++) {
      const id = 100 + i
      const first = FIRST[i % FIRST.length] as string
      const last = LAST[(i * 7) % LAST.length] as string
      const hired = this.options.untilMs - r.int(30, 3000) * DAY_MS
      const inactive = i > 2 && r.chance(0.15)
      // Some records were never changed after import: their lastChanged is empty.
      const changed = r.chance(0.9)
        ? this.options.untilMs - r.int(1, 400) * DAY_MS - r.int(0, 86_399) * 1000
        : null
      const hourly = r.chance(0.2)
      const record: EmployeeRecord = {
        id,
        fields: {
          employeeNumber: String(id).padStart(4, '0'),
          firstName: first,
          lastName: last,
          preferredName: null,
          displayName: `${first} ${last}`,
          jobTitle: r.pick(TITLES),
          workEmail: `${first}.${last}${i}@acme.example`.toLowerCase(),
          homeEmail: r.chance(0.5) ? `${first}${i}@home.example`.toLowerCase() : null,
          workPhone: `801-555-${String(1000 + i).slice(-4)}`,
          mobilePhone: r.chance(0.6) ? `801-555-${String(5000 + i).slice(-4)}` : null,
          homePhone: null,
          dateOfBirth: day(Date.UTC(1970 + r.int(0, 30), r.int(0, 11), r.int(1, 28))),
          gender: r.pick(['Male', 'Female', 'Non-binary']),
          maritalStatus: r.pick(['Single', 'Married', 'Domestic Partnership']),
          hireDate: day(hired),
          // BambooHR prints a date never set as 0000-00-00 (faros-ai/airbyte-connectors#592).
          terminationDate: inactive ? day(hired + r.int(10, 20) * DAY_MS) : '0000-00-00',
          status: inactive ? 'Inactive' : 'Active',
          employmentHistoryStatus: inactive ? 'Terminated' : r.pick(STATUSES),
          department: r.pick(departments),
          division: r.pick(divisions),
          location: r.pick(locations),
          supervisorEId: i === 0 ? null : String(100 + Math.floor((i - 1) / 4)),
          address1: `${r.int(1, 999)} Main St`,
          address2: null,
          city: r.pick(['Lindon', 'Provo', 'Berlin']),
          state: r.pick(['UT', 'BE']),
          zipcode: String(r.int(10000, 99999)),
          country: r.pick(['United States', 'Germany']),
          payRate: hourly ? `${r.int(18, 60)}.00 USD` : `${r.int(50, 200) * 1000}.00 USD`,
          payType: hourly ? 'Hourly' : 'Salary',
          // What payRate is per: `paidPer` in BambooHR's field list
          // (documentation.bamboohr.com/docs/list-of-field-names).
          paidPer: hourly ? 'Hour' : 'Year',
          photoUrl: `https://images.example/photos/${id}.jpg`,
          lastChanged: changed === null ? null : timestamp(changed),
          ssn: `${r.int(100, 899)}-${r.int(10, 99)}-${r.int(1000, 9999)}`,
        },
      }
      if (i === 2) rehire(record.fields, hired)
      this.employees.set(id, record)
    }
  }

  /**
   * Takes an employee out of what the keys' user may see, as an administrator does by giving that user an
   * access level that does not include them (BambooHR's access levels choose which employees a user sees: "You
   * should set your Access Level to view 'All Employees', otherwise the data synced will be missing employee
   * records", https://help.merge.dev/en/articles/5431279-bamboohr-api-key-authentication). Such an employee is
   * a 403 to read or update ("The API user does not have permission to see the requested employee",
   * get-employee and update-employee, BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml),
   * absent from custom reports (as the `all` employee table reads only "employees the API user has access
   * to", get-employee-table-data there), and its updates are not pushed: an update event "will not fire if the
   * webhook creator lacks access to all monitored fields being changed" (the spec's `employee.updated`
   * webhook), and the user can read no field of an employee it cannot see (ours: the inference). Its creation
   * and deletion are still pushed: those events "do not enforce permission checking" (`employee.created`,
   * `employee.deleted` there; the field-based events are their legacy form).
   */
  hideEmployee(id: number): void {
    this.hidden.add(id)
  }

  /** Whether the keys' user may see the employee (see `hideEmployee`). */
  canSee(id: number): boolean {
    return !this.hidden.has(id)
  }

  /** The field names an employee record has that the key's user may read. */
  readableFields(): string[] {
    const names = new Set<string>()
    for (const e of this.employees.values()) for (const f of Object.keys(e.fields)) names.add(f)
    return [...names].filter((f) => !this.restricted.has(f))
  }

  /**
   * A field's numeric id. The Webhooks API prints it as a string in `monitor_fields` ("The field ID, returned
   * as a string", example `'4175'`), as an integer in `post-fields` and either way in a 403's `monitorFields`
   * and `postFields` (WebhookSubErrorProperty: `integer` or `string`, never null; only `unknownFields` may
   * have a null id).
   */
  fieldId(name: string): number {
    let id = this.fieldIds.get(name)
    if (id === undefined) {
      id = this.fieldIds.size + 1
      this.fieldIds.set(name, id)
    }
    return id
  }

  /** The readable fields a webhook may monitor (stored ones: `GET /v1/webhooks/monitor_fields`). */
  monitorableFields(): string[] {
    return this.readableFields().filter((f) => !COMPUTED_FIELDS.has(f))
  }

  addEmployee(fields: Readonly<Record<string, string | null>>): EmployeeRecord {
    const id = Math.max(99, ...this.employees.keys()) + 1
    const first = fields.firstName ?? ''
    const last = fields.lastName ?? ''
    const record: EmployeeRecord = {
      id,
      fields: {
        employeeNumber: null,
        preferredName: null,
        status: 'Active',
        terminationDate: '0000-00-00',
        ...fields,
        displayName: `${first} ${last}`.trim(),
        photoUrl: null,
        lastChanged: timestamp(Date.now()),
      },
    }
    this.employees.set(id, record)
    this.tell('Created', record)
    return record
  }

  /** Sets the given fields; `lastChanged` moves, and webhooks monitoring a changed field are told. */
  updateEmployee(employee: EmployeeRecord, fields: Readonly<Record<string, string | null>>): void {
    const changed = Object.keys(fields).filter((f) => employee.fields[f] !== fields[f])
    Object.assign(employee.fields, fields)
    if (changed.includes('firstName') || changed.includes('lastName')) {
      employee.fields.displayName =
        `${employee.fields.firstName ?? ''} ${employee.fields.lastName ?? ''}`.trim()
    }
    if (changed.length === 0) return
    employee.fields.lastChanged = timestamp(Date.now())
    this.tell('Updated', employee, changed)
  }

  /** Deletes an employee, as an administrator does in BambooHR's web app (the API has no delete). */
  deleteEmployee(id: number): void {
    const employee = this.employees.get(id)
    if (!employee) return
    this.employees.delete(id)
    this.tell('Deleted', employee)
  }

  private tell(action: EmployeeAction, employee: EmployeeRecord, changed: readonly string[] = []): void {
    // An employee the webhook creator may not see has no field it may read: no update is pushed (hideEmployee).
    if (action === 'Updated' && !this.canSee(employee.id)) return
    this.hooks.notify(
      action,
      employee.id,
      (postFields) =>
        Object.fromEntries(
          Object.entries(postFields).map(([field, name]) => [name, employee.fields[field] ?? null]),
        ),
      changed,
    )
  }

  /** The employee an API key acts as (`GET /employees/0`): the first one, for every emulated key. */
  keyEmployeeId(): number {
    return this.employees.keys().next().value ?? 0
  }
}

/**
 * The third employee left and came back: `hireDate` is the rehire, `originalHireDate` "the date the employee
 * was originally hired" (documentation.bamboohr.com/docs/list-of-field-names), and `terminationDate` still
 * the earlier leaving date, since only a new termination replaces it.
 */
function rehire(fields: Record<string, string | null>, hired: number): void {
  fields.originalHireDate = day(hired - 900 * DAY_MS)
  fields.terminationDate = day(hired - 200 * DAY_MS)
}

function plan(
  id: string,
  name: string,
  type: string,
  startDate: string,
  endDate: string | null,
): BenefitPlan {
  return {
    id,
    name,
    type,
    benefitVendorId: null,
    deductionTypeId: null,
    companyDeductionId: null,
    startDate,
    endDate,
    allowsCatchUp: type === 'retirement' ? true : null,
  }
}

import type { UnifiedRecord } from '../../models/index.js'
import type {
  BamboohrCompany,
  BamboohrCompanyBenefit,
  BamboohrEmployee,
  BamboohrListField,
  BamboohrListOption,
} from './types.js'

/**
 * The employee fields every list and read asks BambooHR for, by their API names (documentation.bamboohr.com
 * /docs/list-of-field-names). `lastChanged` is the record's last change, which `updated_gte` filters on.
 */
export const EMPLOYEE_FIELDS = [
  'employeeNumber',
  'firstName',
  'lastName',
  'preferredName',
  'displayName',
  'jobTitle',
  'workEmail',
  'homeEmail',
  'workPhone',
  'mobilePhone',
  'homePhone',
  'dateOfBirth',
  'gender',
  'maritalStatus',
  'hireDate',
  'terminationDate',
  'status',
  'employmentHistoryStatus',
  'department',
  'division',
  'location',
  'supervisorEId',
  'address1',
  'address2',
  'city',
  'state',
  'zipcode',
  'country',
  'payRate',
  'payType',
  'paidPer',
  'payPer',
  'photoUrl',
  'lastChanged',
] as const

const text = (value: string | null | undefined): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined

/**
 * A BambooHR date (`YYYY-MM-DD`) as midnight UTC; the empty date BambooHR writes as `0000-00-00` (seen by
 * faros-ai/airbyte-connectors#592) and anything unreadable are no date at all.
 */
export function parseBamboohrDate(value: string | null | undefined): Date | undefined {
  const v = text(value)
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v) || v.startsWith('0000')) return undefined
  const at = new Date(`${v}T00:00:00Z`)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A BambooHR timestamp (`2024-05-01T10:00:00+00:00`, ISO 8601 with an offset). */
export function parseBamboohrTimestamp(value: string | null | undefined): Date | undefined {
  const v = text(value)
  if (!v) return undefined
  const at = new Date(v)
  return Number.isNaN(at.getTime()) ? undefined : at
}

const GENDERS: Record<string, string> = { male: 'MALE', female: 'FEMALE', 'non-binary': 'NON_BINARY' }
const MARITAL: Record<string, string> = { single: 'SINGLE', married: 'MARRIED' }
/** `employmentHistoryStatus` options BambooHR ships; accounts may add others, which stay in `raw` only. */
const EMPLOYMENT_TYPES: Record<string, string> = {
  'full-time': 'FULL_TIME',
  'part-time': 'PART_TIME',
  contractor: 'CONTRACTOR',
  contract: 'CONTRACTOR',
  intern: 'INTERN',
  freelance: 'FREELANCE',
  seasonal: 'SEASONAL',
  volunteer: 'VOLUNTEER',
}
/**
 * What `payRate` is per (Hour, Day, Week, Month, Quarter, Year; "Pay Period" and "Piece" have no unified
 * frequency). BambooHR's field list names it `paidPer` (documentation.bamboohr.com/docs/list-of-field-names);
 * its OpenAPI also mentions `payPer` (create-employee), so both are asked for and `paidPer` wins.
 */
const PAY_PER: Record<string, string> = {
  hour: 'HOUR',
  day: 'DAY',
  week: 'WEEK',
  month: 'MONTH',
  quarter: 'QUARTER',
  year: 'YEAR',
}

const lookup = (table: Record<string, string>, value: string | null | undefined) => {
  const v = text(value)
  return v ? table[v.toLowerCase()] : undefined
}

/** `payRate` is a currency field written as amount and ISO code (`75000.00 USD`). */
export function parseBamboohrMoney(
  value: string | null | undefined,
): { amount: number; currency?: string } | undefined {
  // Trimmed first, so one `\s*` is left: two around the optional code tried every split of a run of spaces.
  const match = /^([0-9]+(?:\.[0-9]+)?)\s*([A-Z]{3})?$/.exec(text(value)?.replace(/,/g, '').trim() ?? '')
  if (!match) return undefined
  return { amount: Number(match[1]), ...(match[2] ? { currency: match[2] } : {}) }
}

function compensationOf(e: BamboohrEmployee) {
  const pay = parseBamboohrMoney(e.payRate)
  if (!pay) return undefined
  const frequency = lookup(PAY_PER, e.paidPer ?? e.payPer)
  return [
    {
      amount: pay.amount,
      ...(pay.currency ? { currency: pay.currency } : {}),
      ...(frequency ? { frequency } : {}),
      type: 'SALARY',
      ...(text(e.payType) ? { notes: text(e.payType) } : {}),
    },
  ]
}

function contactList<T extends string>(pairs: readonly [string | null | undefined, T][], key: string) {
  const out = pairs.flatMap(([value, type]) => {
    const v = text(value)
    return v ? [{ [key]: v, type }] : []
  })
  return out.length > 0 ? out : undefined
}

/**
 * A rehired employee's `hireDate` is the rehire (the first hire is `originalHireDate`, "the date the employee
 * was originally hired", documentation.bamboohr.com/docs/list-of-field-names) while `terminationDate` may still
 * hold the earlier termination: one before the current hire ended an earlier employment, not this one.
 */
function terminatedAt(hired: Date | undefined, terminated: Date | undefined): Date | undefined {
  return terminated && hired && terminated < hired ? undefined : terminated
}

/** The id of a list option by its list's alias and its name, where one option answers to that name. */
export type OptionIds = (alias: string, name: string) => string | undefined

/**
 * Reports and `GET /v1/employees/{id}` print a department, division or location by its option's name; the
 * options (`GET /v1/meta/lists`) give the id `/group` and `/location` list for it. A name shared by several
 * options is the one not archived, if only one is; otherwise it names no id.
 */
export function optionIdsOf(lists: readonly BamboohrListField[]): OptionIds {
  const ids = new Map<string, string | undefined>()
  for (const field of lists) {
    const alias = aliasOf(field)
    if (!GROUP_LISTS[alias] && alias !== LOCATION_LIST) continue
    const byName = new Map<string, BamboohrListOption[]>()
    // Pushed onto the name's list, not copied per option: 25,000 options of one name (a 325 KB answer from a
    // connection's own api_url) held the event loop for 25 s (a security review, reproduced).
    for (const o of field.options) {
      const named = byName.get(o.name)
      if (named) named.push(o)
      else byName.set(o.name, [o])
    }
    for (const [name, options] of byName) {
      const live = options.filter((o) => o.archived !== 'yes')
      const one = options.length === 1 ? options[0] : live.length === 1 ? live[0] : undefined
      ids.set(`${alias}\n${name}`, one && (alias === LOCATION_LIST ? String(one.id) : groupId(alias, one)))
    }
  }
  return (alias, name) => ids.get(`${alias}\n${name}`)
}

const noOptionIds: OptionIds = () => undefined

/**
 * One employee read from a custom report or `GET /v1/employees/{id}`. Departments, divisions and locations
 * arrive as option names; `optionIds` gives each the id `/group` or `/location` lists for it (without it, or
 * for a name no single option has, the group or location carries its name only).
 */
export function fromBamboohrEmployee(
  e: BamboohrEmployee,
  companyId: string,
  optionIds: OptionIds = noOptionIds,
): UnifiedRecord {
  const first = text(e.firstName)
  const last = text(e.lastName)
  const option = (alias: string, name: string | undefined) => {
    const id = name === undefined ? undefined : optionIds(alias, name)
    return id === undefined ? { name } : { id, name }
  }
  const groups = Object.entries(GROUP_LISTS).flatMap(([alias, type]) => {
    const name = text(e[alias])
    return name ? [{ ...option(alias, name), type }] : []
  })
  const location = text(e.location)
  const address = {
    address1: text(e.address1),
    address2: text(e.address2),
    city: text(e.city),
    region: text(e.state),
    postal_code: text(e.zipcode),
    country: text(e.country),
  }
  const status = text(e.status)?.toLowerCase()
  const hired = parseBamboohrDate(e.hireDate)
  return {
    id: String(e.id),
    company_id: companyId,
    employee_number: text(e.employeeNumber),
    first_name: first,
    last_name: last,
    name: text(e.displayName) ?? ([first, last].filter(Boolean).join(' ') || undefined),
    title: text(e.jobTitle),
    emails: contactList(
      [
        [e.workEmail, 'WORK'],
        [e.homeEmail, 'HOME'],
      ],
      'email',
    ),
    telephones: contactList(
      [
        [e.workPhone, 'WORK'],
        [e.mobilePhone, 'MOBILE'],
        [e.homePhone, 'HOME'],
      ],
      'telephone',
    ),
    date_of_birth: parseBamboohrDate(e.dateOfBirth),
    gender: lookup(GENDERS, e.gender),
    marital_status: lookup(MARITAL, e.maritalStatus),
    hired_at: hired,
    terminated_at: terminatedAt(hired, parseBamboohrDate(e.terminationDate)),
    employment_status: status === 'active' ? 'ACTIVE' : status === 'inactive' ? 'INACTIVE' : undefined,
    employment_type: lookup(EMPLOYMENT_TYPES, e.employmentHistoryStatus),
    manager_id: text(e.supervisorEId),
    image_url: text(e.photoUrl),
    address: Object.values(address).some(Boolean) ? address : undefined,
    groups: groups.length > 0 ? groups : undefined,
    locations: location ? [option(LOCATION_LIST, location)] : undefined,
    compensation: compensationOf(e),
    updated_at: parseBamboohrTimestamp(e.lastChanged),
    raw: e,
  }
}

/** The account itself: one company per BambooHR subdomain, which is its id. */
export function fromBamboohrCompany(c: BamboohrCompany, companyId: string): UnifiedRecord {
  const a = c.address ?? {}
  const address = {
    address1: text(a.line1),
    address2: text(a.line2),
    city: text(a.city),
    region_code: text(a.state),
    postal_code: text(a.zip),
  }
  return {
    id: companyId,
    name: text(c.displayName) ?? text(c.legalName),
    legal_name: text(c.legalName),
    address: Object.values(address).some(Boolean) ? address : undefined,
    raw: c as Record<string, unknown>,
  }
}

/** The list fields whose options are groups, and the unified group type of each. */
export const GROUP_LISTS: Readonly<Record<string, string>> = {
  department: 'DEPARTMENT',
  division: 'DIVISION',
}
/** The list field whose options are locations. */
export const LOCATION_LIST = 'location'

/** A list field's alias (`department`), falling back to its lower-cased name for accounts without one. */
export const aliasOf = (field: BamboohrListField) => (field.alias ?? field.name).trim().toLowerCase()

/** Group ids name their list, as option ids are only unique within one list: `department:18`. */
export const groupId = (alias: string, option: BamboohrListOption) => `${alias}:${option.id}`

function optionTimes(option: BamboohrListOption) {
  return { created_at: parseBamboohrTimestamp(option.createdDate) }
}

/** A department or division option as a group; archived options are inactive groups. */
export function fromBamboohrGroupOption(
  alias: string,
  option: BamboohrListOption,
  companyId: string,
): UnifiedRecord {
  return {
    id: groupId(alias, option),
    name: option.name,
    type: GROUP_LISTS[alias],
    is_active: option.archived !== 'yes',
    company_id: companyId,
    ...optionTimes(option),
    raw: { ...option, list: alias },
  }
}

/** A location list option as a location (the list holds names only, no address). */
export function fromBamboohrLocationOption(option: BamboohrListOption, companyId: string): UnifiedRecord {
  return {
    id: String(option.id),
    name: option.name,
    is_active: option.archived !== 'yes',
    company_id: companyId,
    ...optionTimes(option),
    raw: option as unknown as Record<string, unknown>,
  }
}

/**
 * `CompanyBenefitSummary.type` onto the unified benefit types. `disability` says neither short nor long term,
 * so it gets no type (it stays in `raw`); reimbursement, supplemental and other plans are OTHER.
 */
const BENEFIT_TYPES: Record<string, string> = {
  health: 'HEALTH',
  dental: 'DENTAL',
  vision: 'VISION',
  retirement: 'RETIREMENT',
  hsa: 'HSA',
  flex: 'FSA',
  life: 'LIFE',
  reimbursement: 'OTHER',
  supplemental: 'OTHER',
  other: 'OTHER',
}

/** A company benefit plan; a plan whose end date has passed is inactive. */
export function fromBamboohrBenefit(
  b: BamboohrCompanyBenefit,
  companyId: string,
  now: Date = new Date(),
): UnifiedRecord {
  const end = parseBamboohrDate(b.endDate)
  return {
    id: String(b.id),
    name: b.name,
    type: lookup(BENEFIT_TYPES, b.type),
    is_active:
      end === undefined ||
      end.getTime() >= Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()),
    company_id: companyId,
    raw: b as unknown as Record<string, unknown>,
  }
}

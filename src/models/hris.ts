import { type TProperties, Type } from '@sinclair/typebox'
import type { ObjectModel } from './common.js'
import {
  Address,
  ALL_OPS,
  b,
  base,
  d,
  defineModel,
  list,
  MetadataList,
  n,
  openEnum,
  s,
  strings,
} from './define.js'

/*
 * The HRIS models as the official SDK's wire contract has them (`HrisEmployee`, `HrisCompany`, ... in
 * `@unified-api/typescript-sdk` src/sdk/models/shared): every field optional except inside the nested
 * emails, telephones and payslip details, enums open on read.
 */

export const HRIS_EMPLOYMENT_STATUSES = ['ACTIVE', 'INACTIVE'] as const
export const HRIS_EMPLOYMENT_TYPES = [
  'FULL_TIME',
  'PART_TIME',
  'CONTRACTOR',
  'INTERN',
  'CONSULTANT',
  'VOLUNTEER',
  'CASUAL',
  'SEASONAL',
  'FREELANCE',
  'OTHER',
] as const
export const HRIS_GENDERS = ['MALE', 'FEMALE', 'INTERSEX', 'TRANS', 'NON_BINARY'] as const
export const HRIS_MARITAL_STATUSES = ['MARRIED', 'SINGLE'] as const
export const HRIS_EMPLOYEE_ROLES = [
  'ADMIN',
  'MANAGER',
  'RECRUITER',
  'SALESREP',
  'INTERVIEWER',
  'USER',
  'EMPLOYEE',
] as const
export const HRIS_FREQUENCIES = ['ONE_TIME', 'DAY', 'QUARTER', 'YEAR', 'HOUR', 'MONTH', 'WEEK'] as const
export const HRIS_COMPENSATION_TYPES = ['SALARY', 'BONUS', 'STOCK_OPTIONS', 'EQUITY', 'OTHER'] as const
export const HRIS_RELATIONSHIP_TYPES = [
  'EMERGENCY',
  'SPOUSE',
  'CHILD',
  'PARENT',
  'SIBLING',
  'FRIEND',
  'OTHER',
] as const
export const HRIS_GROUP_TYPES = [
  'TEAM',
  'GROUP',
  'DEPARTMENT',
  'DIVISION',
  'BUSINESS_UNIT',
  'BRANCH',
  'SUB_DEPARTMENT',
] as const
export const HRIS_PAYMENT_TYPES = ['DIRECT', 'CHEQUE', 'CASH'] as const
export const HRIS_PAYSLIP_DETAIL_TYPES = [
  'EARNING_SALARY',
  'EARNING_OVERTIME',
  'EARNING_TIP',
  'EARNING_BONUS',
  'EARNING_COMMISSION',
  'EARNING_ADJUSTMENT',
  'EARNING',
  'PRETAX_DEDUCTION',
  'PRETAX_DEDUCTION_HEALTH_INSURANCE',
  'PRETAX_DEDUCTION_RETIREMENT',
  'PRETAX_DEDUCTION_HRA',
  'TAX_FEDERAL',
  'TAX_REGION',
  'TAX_LOCAL',
  'POSTTAX_BENEFIT',
  'POSTTAX_GARNISHMENT',
  'REIMBURSEMENT',
] as const
export const HRIS_COVERAGE_LEVELS = [
  'EMPLOYEE_ONLY',
  'EMPLOYEE_SPOUSE',
  'EMPLOYEE_CHILD',
  'EMPLOYEE_CHILDREN',
  'EMPLOYEE_FAMILY',
  'FAMILY',
  'OTHER',
] as const
export const HRIS_CONTRIBUTION_TYPES = ['PERCENTAGE', 'FIXED'] as const
export const HRIS_BENEFIT_TAXES = ['PRE_TAX', 'POST_TAX', 'TAXABLE', 'NON_TAXABLE', 'TAX'] as const
export const HRIS_BENEFIT_TYPES = [
  'RETIREMENT',
  'HEALTH',
  'DENTAL',
  'VISION',
  'LIFE',
  'HSA',
  'FSA',
  'SHORT_TERM_DISABILITY',
  'LONG_TERM_DISABILITY',
  'WORKERS_COMP',
  'HOUSING_STIPEND',
  'EMPLOYER_TAX_CONTRIBUTION',
  'GARNISHMENT',
  'LOAN_REPAYMENT',
  'CHARITABLE_CONTRIBUTION',
  'OTHER',
] as const
export const HRIS_DEDUCTION_TYPES = ['FIXED', 'PERCENTAGE'] as const

const Email = Type.Object(
  { email: Type.String(), type: openEnum(['WORK', 'HOME', 'OTHER'], 'Kind of address.') },
  { additionalProperties: false },
)
const Telephone = Type.Object(
  {
    telephone: Type.String(),
    type: openEnum(['WORK', 'HOME', 'OTHER', 'FAX', 'MOBILE'], 'Kind of number.'),
  },
  { additionalProperties: false },
)
const Compensation = Type.Object(
  {
    amount: n(),
    currency: s(),
    frequency: openEnum(HRIS_FREQUENCIES, 'How often it is paid.'),
    group_id: s(),
    notes: s(),
    type: openEnum(HRIS_COMPENSATION_TYPES, 'Kind of compensation.'),
  },
  { additionalProperties: false },
)
const Relationship = Type.Object(
  {
    address: Address(),
    emails: list(Email),
    end_at: d(),
    first_name: s(),
    is_beneficiary: b(),
    is_dependent: b(),
    last_name: s(),
    name: s(),
    start_at: d(),
    telephones: list(Telephone),
    type: openEnum(HRIS_RELATIONSHIP_TYPES, 'Relationship to the employee.'),
  },
  { additionalProperties: false },
)

const groupFields = (): TProperties =>
  base({
    company_id: s(),
    description: s(),
    is_active: b(),
    manager_ids: strings(),
    name: s(),
    parent_id: s(),
    type: openEnum(HRIS_GROUP_TYPES, 'Kind of group.'),
    user_ids: strings(),
  })

const locationFields = (): TProperties =>
  base({
    address: Address(),
    company_id: s(),
    currency: s(),
    description: s(),
    external_identifier: s(),
    is_active: b(),
    is_hq: b(),
    language_locale: s(),
    name: s(),
    parent_id: s(),
    telephones: list(Telephone),
    timezone: s(),
  })

const deductionFields = (): TProperties =>
  base({
    amount: n(),
    benefit_id: s(),
    company_id: s(),
    coverage_level: openEnum(HRIS_COVERAGE_LEVELS, 'Who the deduction covers.'),
    end_at: d(),
    frequency: openEnum(HRIS_FREQUENCIES, 'How often it is deducted.'),
    is_active: b(),
    notes: s(),
    start_at: d(),
    type: openEnum(HRIS_DEDUCTION_TYPES, 'Whether amount is fixed or a percentage.'),
    user_id: s(),
  })

export const HrisGroup = Type.Object(groupFields(), { $id: 'HrisGroup', additionalProperties: false })
export const HrisLocation = Type.Object(locationFields(), {
  $id: 'HrisLocation',
  additionalProperties: false,
})

export const HrisEmployee = Type.Object(
  base({
    address: Address(),
    bio: s(),
    company_id: s(),
    compensation: list(Compensation),
    currency: s(),
    date_of_birth: d(),
    emails: list(Email),
    employee_number: s(),
    employee_roles: list(Type.String({ description: `One of: ${HRIS_EMPLOYEE_ROLES.join(', ')}.` })),
    employment_status: openEnum(HRIS_EMPLOYMENT_STATUSES, 'Employment status.'),
    employment_type: openEnum(HRIS_EMPLOYMENT_TYPES, 'Employment type.'),
    first_name: s(),
    gender: openEnum(HRIS_GENDERS, 'Gender.'),
    // Nested copies (no `$id`), so the registry holds each schema id once.
    groups: list(Type.Object(groupFields(), { additionalProperties: false })),
    has_mfa: b(),
    hired_at: d(),
    image_url: s(),
    language_locale: s(),
    last_name: s(),
    locations: list(Type.Object(locationFields(), { additionalProperties: false })),
    manager_id: s(),
    marital_status: openEnum(HRIS_MARITAL_STATUSES, 'Marital status.'),
    metadata: MetadataList(),
    name: s(),
    pronouns: s(),
    relationships: list(Relationship),
    salutation: s(),
    ssn_sin: s(),
    storage_quota_allocated: n(),
    storage_quota_available: n(),
    storage_quota_used: n(),
    telephones: list(Telephone),
    terminated_at: d(),
    termination_reason: s(),
    timeoff_days_total: n(),
    timeoff_days_used: n(),
    timezone: s(),
    title: s(),
  }),
  { $id: 'HrisEmployee', additionalProperties: false },
)

export const HrisCompany = Type.Object(base({ address: Address(), legal_name: s(), name: s() }), {
  $id: 'HrisCompany',
  additionalProperties: false,
})

const PayslipDetail = Type.Object(
  {
    amount: Type.Number(),
    company_amount: n(),
    description: s(),
    employee_amount: n(),
    name: s(),
    type: openEnum(HRIS_PAYSLIP_DETAIL_TYPES, 'Kind of line.'),
  },
  { additionalProperties: false },
)

export const HrisPayslip = Type.Object(
  base({
    company_id: s(),
    currency: s(),
    deduction: Type.Optional(Type.Object(deductionFields(), { additionalProperties: false })),
    details: list(PayslipDetail),
    end_at: d(),
    gross_amount: n(),
    net_amount: n(),
    paid_at: d(),
    payment_reference: s(),
    payment_type: openEnum(HRIS_PAYMENT_TYPES, 'How it was paid.'),
    start_at: d(),
    user_id: s(),
  }),
  { $id: 'HrisPayslip', additionalProperties: false },
)

export const HrisBenefit = Type.Object(
  base({
    company_id: s(),
    coverage_level: openEnum(HRIS_COVERAGE_LEVELS, 'Who the benefit covers.'),
    currency: s(),
    description: s(),
    employer_contribution_amount: n(),
    employer_contribution_max_amount: n(),
    employer_contribution_type: openEnum(HRIS_CONTRIBUTION_TYPES, 'How the employer contributes.'),
    frequency: openEnum(HRIS_FREQUENCIES, 'How often it applies.'),
    is_active: b(),
    name: s(),
    tax: openEnum(HRIS_BENEFIT_TAXES, 'Tax treatment.'),
    type: openEnum(HRIS_BENEFIT_TYPES, 'Kind of benefit.'),
  }),
  { $id: 'HrisBenefit', additionalProperties: false },
)

export const HrisDeduction = Type.Object(deductionFields(), {
  $id: 'HrisDeduction',
  additionalProperties: false,
})

const EMPLOYEE_PERSONAL = [
  'address',
  'bio',
  'compensation',
  'date_of_birth',
  'emails',
  'first_name',
  'gender',
  'image_url',
  'last_name',
  'marital_status',
  'name',
  'pronouns',
  'relationships',
  'salutation',
  'ssn_sin',
  'telephones',
]

const hris = (def: Omit<Parameters<typeof defineModel>[0], 'category'>) =>
  defineModel({ ...def, category: 'hris' })

/** Operations and list filters follow the SDK's operations (`listHrisEmployees` and kin). */
export const HRIS_MODELS: readonly ObjectModel[] = [
  hris({
    objectType: 'hris_employee',
    path: 'employee',
    singular: 'HrisEmployee',
    plural: 'HrisEmployees',
    schema: HrisEmployee,
    operations: ALL_OPS,
    filters: { company_id: 'string', group_id: 'string', location_id: 'string' },
    personalFields: EMPLOYEE_PERSONAL,
    closedEnums: {
      employment_status: HRIS_EMPLOYMENT_STATUSES,
      employment_type: HRIS_EMPLOYMENT_TYPES,
      gender: HRIS_GENDERS,
      marital_status: HRIS_MARITAL_STATUSES,
    },
  }),
  hris({
    objectType: 'hris_company',
    path: 'company',
    singular: 'HrisCompany',
    plural: 'HrisCompanies',
    schema: HrisCompany,
    operations: ALL_OPS,
    filters: {},
  }),
  hris({
    objectType: 'hris_payslip',
    path: 'payslip',
    singular: 'HrisPayslip',
    plural: 'HrisPayslips',
    schema: HrisPayslip,
    operations: ['list', 'get'],
    filters: { company_id: 'string', user_id: 'string' },
    personalFields: ['gross_amount', 'net_amount', 'details', 'deduction', 'payment_reference'],
  }),
  hris({
    objectType: 'hris_benefit',
    path: 'benefit',
    singular: 'HrisBenefit',
    plural: 'HrisBenefits',
    schema: HrisBenefit,
    operations: ALL_OPS,
    filters: { company_id: 'string' },
    closedEnums: {
      coverage_level: HRIS_COVERAGE_LEVELS,
      employer_contribution_type: HRIS_CONTRIBUTION_TYPES,
      frequency: HRIS_FREQUENCIES,
      tax: HRIS_BENEFIT_TAXES,
      type: HRIS_BENEFIT_TYPES,
    },
  }),
  hris({
    objectType: 'hris_deduction',
    path: 'deduction',
    singular: 'HrisDeduction',
    plural: 'HrisDeductions',
    schema: HrisDeduction,
    operations: ALL_OPS,
    filters: {
      benefit_id: 'string',
      company_id: 'string',
      payslip_id: 'string',
      user_id: 'string',
      start_gte: 'date',
      end_lt: 'date',
    },
    personalFields: ['amount', 'notes'],
    closedEnums: {
      coverage_level: HRIS_COVERAGE_LEVELS,
      frequency: HRIS_FREQUENCIES,
      type: HRIS_DEDUCTION_TYPES,
    },
  }),
  hris({
    objectType: 'hris_location',
    path: 'location',
    singular: 'HrisLocation',
    plural: 'HrisLocations',
    schema: HrisLocation,
    operations: ALL_OPS,
    filters: { company_id: 'string', parent_id: 'string' },
  }),
  hris({
    objectType: 'hris_group',
    path: 'group',
    singular: 'HrisGroup',
    plural: 'HrisGroups',
    schema: HrisGroup,
    operations: ALL_OPS,
    filters: { company_id: 'string', type: 'string' },
    closedEnums: { type: HRIS_GROUP_TYPES },
  }),
]

import { Type } from '@sinclair/typebox'
import type { ObjectModel } from './common.js'
import { ALL_OPS, base, d, defineModel, list, MetadataList, n, openEnum, s } from './define.js'

/* The ATS models as the official SDK's wire contract has them (`AtsApplication` and its nested objects). */

export const ATS_APPLICATION_STATUSES = [
  'NEW',
  'REVIEWING',
  'SCREENING',
  'SUBMITTED',
  'FIRST_INTERVIEW',
  'SECOND_INTERVIEW',
  'THIRD_INTERVIEW',
  'BACKGROUND_CHECK',
  'OFFERED',
  'ACCEPTED',
  'HIRED',
  'REJECTED',
  'DECLINED',
  'WITHDRAWN',
] as const
export const ATS_OFFER_STATUSES = ['CREATED', 'SENT', 'ACCEPTED', 'REJECTED'] as const
const FREQUENCIES = ['ONE_TIME', 'DAY', 'QUARTER', 'YEAR', 'HOUR', 'MONTH', 'WEEK'] as const
const COMPENSATION_TYPES = ['SALARY', 'BONUS', 'STOCK_OPTIONS', 'EQUITY', 'OTHER'] as const

const Answer = Type.Object(
  { answers: Type.Array(Type.String()), question: s(), question_id: Type.String() },
  { additionalProperties: false },
)

const Compensation = Type.Object(
  {
    currency: s(),
    frequency: openEnum(FREQUENCIES, 'How often it is paid.'),
    max: n(),
    min: n(),
    type: openEnum(COMPENSATION_TYPES, 'Kind of compensation.'),
  },
  { additionalProperties: false },
)

const Offer = Type.Object(
  {
    id: s(),
    created_at: d(),
    updated_at: d(),
    accepted_at: d(),
    compensation: list(Compensation),
    creator_user_id: s(),
    employee_user_id: s(),
    rejected_at: d(),
    sent_at: d(),
    start_at: d(),
    status: openEnum(ATS_OFFER_STATUSES, 'Offer status.'),
  },
  { additionalProperties: false },
)

export const AtsApplication = Type.Object(
  base({
    answers: list(Answer),
    applied_at: d(),
    candidate_id: s(),
    hired_at: d(),
    job_id: s(),
    metadata: MetadataList(),
    offers: list(Offer),
    original_status: s(),
    original_substatus: s(),
    rejected_at: d(),
    rejected_reason: s(),
    source: s(),
    status: openEnum(ATS_APPLICATION_STATUSES, 'Application status.'),
    summary: s(),
    user_id: s(),
  }),
  { $id: 'AtsApplication', additionalProperties: false },
)

/** Operations and list filters follow the SDK's operations (`listAtsApplications` and kin). */
export const ATS_MODELS: readonly ObjectModel[] = [
  defineModel({
    objectType: 'ats_application',
    category: 'ats',
    path: 'application',
    singular: 'AtsApplication',
    plural: 'AtsApplications',
    schema: AtsApplication,
    operations: ALL_OPS,
    filters: { candidate_id: 'string', company_id: 'string', job_id: 'string', status: 'string' },
    personalFields: ['answers', 'rejected_reason', 'summary'],
    closedEnums: { status: ATS_APPLICATION_STATUSES },
  }),
]

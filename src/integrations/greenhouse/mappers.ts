import type { UnifiedRecord } from '../../models/index.js'
import { statusOfStageName } from '../ats-stages.js'
import type { GreenhouseApplication, GreenhouseKeyedField, GreenhouseOffer } from './types.js'

/** A Harvest timestamp (ISO-8601 UTC) or calendar date as a Date; undefined when absent or unreadable. */
export function parseGreenhouseTime(value: string | null | undefined): Date | undefined {
  if (!value) return undefined
  // A bare date (an offer's sent_at/starts_at) is that calendar day; read as its UTC midnight.
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

const idText = (value: number | null | undefined) =>
  value === null || value === undefined ? undefined : String(value)

/** The unified status of an application: hired and rejected as such, an active one by its stage. */
export function unifiedStatusOf(
  app: Pick<GreenhouseApplication, 'status' | 'current_stage'>,
): string | undefined {
  if (app.status === 'hired') return 'HIRED'
  if (app.status === 'rejected') return 'REJECTED'
  if (app.status !== 'active') return undefined
  // An active application is in a stage; only a stage name that means a unified status gives one.
  return statusOfStageName(app.current_stage?.name)
}

/** The unified statuses Greenhouse can filter by, and its `status` for each. */
export const STATUS_FILTERS: Readonly<Record<string, string>> = { HIRED: 'hired', REJECTED: 'rejected' }

/** Custom field types (`value_type` of the custom field object) onto metadata formats. */
const FORMATS: Readonly<Record<string, string>> = {
  short_text: 'TEXT',
  long_text: 'TEXTAREA',
  yes_no: 'YES_NO',
  single_select: 'SINGLE_SELECT',
  multi_select: 'MULTIPLE_SELECT',
  currency: 'CURRENCY',
  number: 'NUMBER',
  date: 'DATE',
  url: 'URL',
}

/** `keyed_custom_fields` as metadata: the immutable key is the id and slug, the label the namespace-free name. */
export function metadataOf(fields: Readonly<Record<string, GreenhouseKeyedField | null>> | null | undefined) {
  return Object.entries(fields ?? {}).map(([key, field]) => ({
    id: key,
    slug: key,
    ...(field?.name ? { extra_data: { name: field.name } } : {}),
    ...(field?.type && FORMATS[field.type] ? { format: FORMATS[field.type] } : {}),
    value: field?.value,
  }))
}

/**
 * One offer version. Greenhouse's `unresolved` is SENT once it has a `sent_at`, else CREATED; `resolved_at`
 * is when it was accepted or rejected. `deprecated` (superseded by a newer version) has no unified
 * equivalent and passes through as Greenhouse names it.
 */
export function fromGreenhouseOffer(offer: GreenhouseOffer): Record<string, unknown> {
  const resolved = parseGreenhouseTime(offer.resolved_at)
  const status =
    offer.status === 'unresolved'
      ? offer.sent_at
        ? 'SENT'
        : 'CREATED'
      : offer.status === 'accepted'
        ? 'ACCEPTED'
        : offer.status === 'rejected'
          ? 'REJECTED'
          : (offer.status ?? undefined)
  return {
    id: String(offer.id),
    created_at: parseGreenhouseTime(offer.created_at),
    updated_at: parseGreenhouseTime(offer.updated_at),
    sent_at: parseGreenhouseTime(offer.sent_at),
    start_at: parseGreenhouseTime(offer.starts_at),
    ...(offer.status === 'accepted' ? { accepted_at: resolved } : {}),
    ...(offer.status === 'rejected' ? { rejected_at: resolved } : {}),
    status,
  }
}

/**
 * An application as the unified model has it. Harvest has no `created_at`/`updated_at` on applications:
 * `created_at` is `applied_at` (what `created_after` filters on) and `updated_at` is `last_activity_at`
 * (what `last_activity_after` filters on). A prospect "has not yet applied for this job"
 * (harvest.html#the-application-object, `prospect`): its `applied_at` is only when it was added, so the
 * unified `applied_at` stays empty for it. A prospect considered for several jobs (or none) has no single
 * `job_id`; all its jobs stay in `raw.jobs`. Answers carry no question id: the question text stands in.
 */
export function fromGreenhouseApplication(app: GreenhouseApplication): UnifiedRecord {
  const jobs = app.jobs ?? []
  const applied = parseGreenhouseTime(app.applied_at)
  return {
    id: String(app.id),
    created_at: applied,
    updated_at: parseGreenhouseTime(app.last_activity_at),
    applied_at: app.prospect === true ? undefined : applied,
    candidate_id: idText(app.candidate_id),
    job_id: jobs.length === 1 ? idText(jobs[0]?.id) : undefined,
    user_id: idText(app.recruiter?.id),
    source: app.source?.public_name ?? undefined,
    status: unifiedStatusOf(app),
    original_status: app.status ?? undefined,
    original_substatus: app.current_stage?.name ?? undefined,
    rejected_at: parseGreenhouseTime(app.rejected_at),
    rejected_reason: app.rejection_reason?.name ?? undefined,
    answers: (app.answers ?? [])
      .filter((a) => typeof a.question === 'string' && a.question !== '')
      .map((a) => ({
        question_id: a.question as string,
        question: a.question as string,
        answers: typeof a.answer === 'string' ? [a.answer] : [],
      })),
    metadata: metadataOf(app.keyed_custom_fields),
    raw: app,
  }
}

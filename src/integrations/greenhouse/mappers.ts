import type { UnifiedRecord } from '../../models/index.js'
import { statusOfStageName } from '../ats-stages.js'
import { type ApplicationNames, NO_NAMES } from './lookups.js'
import type { GreenhouseApplication, GreenhouseCustomField, GreenhouseOffer } from './types.js'

/** A Harvest timestamp (ISO-8601 UTC) or calendar date as a Date; undefined when absent or unreadable. */
export function parseGreenhouseTime(value: string | null | undefined): Date | undefined {
  if (!value) return undefined
  // A bare date (an `_on` field) is that calendar day; read as its UTC midnight.
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

const idText = (value: number | null | undefined) =>
  value === null || value === undefined ? undefined : String(value)

/** The unified status of an application: hired and rejected as such, one in process by its stage's name. */
export function unifiedStatusOf(
  app: Pick<GreenhouseApplication, 'status' | 'stage_name'>,
): string | undefined {
  if (app.status === 'hired') return 'HIRED'
  if (app.status === 'rejected') return 'REJECTED'
  if (app.status !== 'in_process') return undefined
  // Only a stage name that means a unified status gives one.
  return statusOfStageName(app.stage_name ?? undefined)
}

/** The unified statuses Greenhouse can filter by, and its `status` for each. */
export const STATUS_FILTERS: Readonly<Record<string, string>> = { HIRED: 'hired', REJECTED: 'rejected' }

/** Custom field types (`value_type` of the custom field) onto metadata formats. */
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

/** `custom_fields` as metadata: the `name_key` is the id and slug, the display name goes in extra_data. */
export function metadataOf(
  fields: Readonly<Record<string, GreenhouseCustomField | null>> | null | undefined,
) {
  return Object.entries(fields ?? {}).map(([key, field]) => ({
    id: key,
    slug: key,
    ...(field?.name ? { extra_data: { name: field.name } } : {}),
    ...(field?.type && FORMATS[field.type] ? { format: FORMATS[field.type] } : {}),
    value: field?.value,
  }))
}

/**
 * One offer version. A created offer is SENT once it has a `sent_on`, else CREATED; `resolved_at` is when
 * it was accepted or rejected. `deprecated` (superseded by a newer version) has no unified equivalent and
 * passes through as Greenhouse names it.
 */
export function fromGreenhouseOffer(offer: GreenhouseOffer): Record<string, unknown> {
  const resolved = parseGreenhouseTime(offer.resolved_at)
  const state = offer.status?.toLowerCase()
  const status =
    state === 'created'
      ? offer.sent_on
        ? 'SENT'
        : 'CREATED'
      : state === 'accepted'
        ? 'ACCEPTED'
        : state === 'rejected'
          ? 'REJECTED'
          : (offer.status ?? undefined)
  return {
    id: String(offer.id),
    created_at: parseGreenhouseTime(offer.created_at),
    updated_at: parseGreenhouseTime(offer.updated_at),
    sent_at: parseGreenhouseTime(offer.sent_on),
    start_at: parseGreenhouseTime(offer.starts_on),
    ...(state === 'accepted' ? { accepted_at: resolved } : {}),
    ...(state === 'rejected' ? { rejected_at: resolved } : {}),
    status,
  }
}

/**
 * An application as the unified model has it. v3 has no `applied_at`: `created_at` is when the application
 * was made, so it is both `created_at` and `applied_at` (a prospect, not yet applied, has no `applied_at`); `updated_at` is v3's own (what its `updated_at`
 * filter reads). A prospect has no `job_id` (its jobs are `raw.prospective_job_ids`). Related records are
 * ids in v3: `source` and `rejected_reason` are the names of `source_id` and `rejection_reason_id`, looked
 * up for the page (`names`, see lookups.ts), and left out when the id is null or has no name there;
 * `original_substatus` is the stage. Answers carry no question id: the question text stands in.
 */
export function fromGreenhouseApplication(
  app: GreenhouseApplication,
  names: ApplicationNames = NO_NAMES,
): UnifiedRecord {
  const created = parseGreenhouseTime(app.created_at)
  return {
    id: String(app.id),
    created_at: created,
    updated_at: parseGreenhouseTime(app.updated_at),
    // A prospect "has not yet applied for this job" (Greenhouse's own words): it has no application date.
    applied_at: app.prospect ? undefined : created,
    candidate_id: idText(app.candidate_id),
    job_id: idText(app.job_id),
    user_id: idText(app.recruiter_id),
    status: unifiedStatusOf(app),
    original_status: app.status ?? undefined,
    original_substatus: app.stage_name ?? undefined,
    rejected_at: parseGreenhouseTime(app.rejected_at),
    source: app.source_id == null ? undefined : names.sources.get(app.source_id),
    rejected_reason:
      app.rejection_reason_id == null ? undefined : names.rejectionReasons.get(app.rejection_reason_id),
    answers: (app.answers ?? [])
      .filter((a) => typeof a.question === 'string' && a.question !== '')
      .map((a) => ({
        question_id: a.question as string,
        question: a.question as string,
        answers: typeof a.answer === 'string' ? [a.answer] : [],
      })),
    metadata: metadataOf(app.custom_fields),
    raw: app,
  }
}

import type { ApplicationRecord, CustomFieldValue, OfferRecord } from './state.js'

/**
 * Records as Harvest v3 prints them (https://harvestdocs.greenhouse.io/docs/standardizations): "Date-time
 * fields use ISO 8601 format in UTC (for example, 2024-12-15T03:55:00.000Z)", date-only fields end in
 * `_on`, date-times in `_at`; "All parent resource IDs are included in child resources"; every resource has
 * `created_at` and `updated_at`. ASSUMPTION beyond that (the reference pages were not readable to us):
 * related records appear as `<name>_id`, `null` for absent values as in v1, custom fields as
 * `custom_fields` key -> value.
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const customFields = (values: readonly CustomFieldValue[]) =>
  Object.fromEntries(values.map((f) => [f.key, f.value]))

/**
 * An application. ASSUMPTION: one `job_id` (a job is the application's parent); a prospect considered for
 * several jobs or none has `job_id: null` here.
 */
export function renderApplication(app: ApplicationRecord): Record<string, unknown> {
  return {
    id: app.id,
    candidate_id: app.candidateId,
    job_id: app.jobs.length === 1 ? (app.jobs[0]?.id ?? null) : null,
    prospect: app.prospect,
    status: app.status,
    current_stage_id: app.currentStage?.id ?? null,
    source_id: app.source?.id ?? null,
    recruiter_id: app.recruiter?.id ?? null,
    credited_to_id: app.creditedTo?.id ?? null,
    applied_at: iso(app.appliedAt),
    rejected_at: iso(app.rejectedAt),
    last_activity_at: iso(app.lastActivityAt),
    created_at: iso(app.createdAt),
    updated_at: iso(app.updatedAt),
    custom_fields: customFields(app.customFields),
  }
}

/** An offer: its application's id (the parent), `sent_on`/`start_on` dates, `resolved_at` an instant. */
export function renderOffer(offer: OfferRecord): Record<string, unknown> {
  return {
    id: offer.id,
    application_id: offer.applicationId,
    version: offer.version,
    status: offer.status,
    sent_on: offer.sentAt,
    start_on: offer.startsAt,
    resolved_at: iso(offer.resolvedAt),
    created_at: iso(offer.createdAt),
    updated_at: iso(offer.updatedAt),
    custom_fields: customFields(offer.customFields),
  }
}

import type {
  ApplicationRecord,
  CustomFieldValue,
  OfferRecord,
  RejectionReasonRecord,
  SourceRecord,
} from './state.js'

/**
 * Records as Harvest v3 prints them (https://harvestdocs.greenhouse.io/docs/standardizations): "Date-time
 * fields use ISO 8601 format in UTC (for example, 2024-12-15T03:55:00.000Z)", date-only fields end in
 * `_on`, date-times in `_at`; "All parent resource IDs are included in child resources"; every resource has
 * `created_at` and `updated_at`. The fields are those of the documented v3 examples and schemas that
 * Airbyte's Greenhouse source validates against (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml: schemas, and its unit test
 * `test_documented_v3_examples_validate_against_stream_schemas`).
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** "Org-defined custom fields keyed by the field's `name_key`. Each value carries the field's display `name`, its `type`, and its `value`" (ibid.). */
const customFields = (values: readonly CustomFieldValue[]) =>
  Object.fromEntries(values.map((f) => [f.key, { name: f.name, type: f.type, value: f.value }]))

/**
 * An application. `job_id` is "null for jobless prospect applications"; a prospect's jobs are
 * `prospective_job_ids`; the stage is `stage_id`/`stage_name`, "null for prospect applications"; v3 has no
 * `applied_at` (`created_at` is when it was made); related records are ids (ibid.).
 */
const inStage = (app: ApplicationRecord) =>
  app.currentStage !== null && (app.status === 'in_process' || app.status === 'converted')

export function renderApplication(app: ApplicationRecord): Record<string, unknown> {
  return {
    id: app.id,
    candidate_id: app.candidateId,
    job_id: app.prospect ? null : (app.jobs[0]?.id ?? null),
    prospective_job_ids: app.prospect ? app.jobs.map((j) => j.id) : [],
    prospect: app.prospect,
    status: app.status,
    // `stage_id` is the application's own stage entry ("the same value as `stage_id` on each application —
    // NOT job interview stage definition IDs", the v3 reference's `stage_ids` filter as the public inventory
    // quotes it); `job_interview_stage_id` is the definition. Both are "`null` for prospect applications and
    // applications in a terminal state" (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, schemas.applications);
    // `stage_name` has no such note and stays.
    stage_id: inStage(app) ? app.id * 10 + 1 : null,
    stage_name: app.currentStage?.name ?? null,
    job_interview_stage_id: inStage(app) ? (app.currentStage?.id ?? null) : null,
    source_id: app.source?.id ?? null,
    referrer_id: null,
    agency_note_id: null,
    recruiter_id: app.recruiter?.id ?? null,
    coordinator_id: app.coordinator?.id ?? null,
    rejection_reason_id: app.rejectionReason?.id ?? null,
    rejected_at: iso(app.rejectedAt),
    last_activity_at: iso(app.lastActivityAt),
    needs_decision: false,
    job_post_id: app.jobPostId,
    location_address: app.prospect ? null : 'New York, New York, USA',
    answers: app.answers,
    custom_fields: customFields(app.customFields),
    created_at: iso(app.createdAt),
    updated_at: iso(app.updatedAt),
  }
}

/**
 * An offer: `application_id`, `candidate_id`, `job_id`, `opening_id`, `version`, `status`, `sent_on` and
 * `starts_on` (dates, YYYY-MM-DD), `resolved_at` (an instant), `custom_fields` (ibid.).
 */
export function renderOffer(offer: OfferRecord, app: ApplicationRecord | undefined): Record<string, unknown> {
  return {
    id: offer.id,
    application_id: offer.applicationId,
    candidate_id: app?.candidateId ?? null,
    job_id: app?.jobs[0]?.id ?? null,
    opening_id: null,
    version: offer.version,
    status: offer.status,
    sent_on: offer.sentAt,
    starts_on: offer.startsAt,
    resolved_at: iso(offer.resolvedAt),
    custom_fields: customFields(offer.customFields),
    created_at: iso(offer.createdAt),
    updated_at: iso(offer.updatedAt),
  }
}

/** A source: `id`, `name`, `type` `{id, name}` (see SourceRecord). */
export function renderSource(source: SourceRecord): Record<string, unknown> {
  return { id: source.id, name: source.name, type: source.type }
}

/** A rejection reason: `id`, `name`, `type` `{id, key, name}` (see RejectionReasonRecord). */
export function renderRejectionReason(reason: RejectionReasonRecord): Record<string, unknown> {
  return { id: reason.id, name: reason.name, type: reason.type }
}

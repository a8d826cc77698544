import type {
  ApplicationRecord,
  CandidateRecord,
  CustomFieldValue,
  GreenhouseState,
  OfferRecord,
  UserRef,
} from './state.js'

/**
 * Records as Harvest prints them. "Properties without a value will use null instead of being undefined";
 * "Timestamps are rendered in ISO-8601 format (e.g. 2016-02-03T16:38:46.985Z)" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, General considerations).
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const user = (u: UserRef | null) => (u ? { ...u, name: `${u.first_name} ${u.last_name}` } : null)

/** `custom_fields` (key -> value) and `keyed_custom_fields` (key -> {name, type, value}) (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, _offers.md). */
function customFields(values: readonly CustomFieldValue[]) {
  return {
    custom_fields: Object.fromEntries(values.map((f) => [f.key, f.value])),
    keyed_custom_fields: Object.fromEntries(
      values.map((f) => [f.key, { name: f.name, type: f.type, value: f.value }]),
    ),
  }
}

/** The application object (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, "The application object"). */
export function renderApplication(app: ApplicationRecord): Record<string, unknown> {
  return {
    id: app.id,
    candidate_id: app.candidateId,
    prospect: app.prospect,
    applied_at: iso(app.appliedAt),
    rejected_at: iso(app.rejectedAt),
    last_activity_at: iso(app.lastActivityAt),
    location: app.prospect ? null : { address: 'New York, New York, USA' },
    source: app.source,
    credited_to: user(app.creditedTo),
    recruiter: user(app.recruiter),
    coordinator: user(app.coordinator),
    rejection_reason: app.rejectionReason,
    rejection_details: app.rejectionReason ? { custom_fields: {}, keyed_custom_fields: {} } : null,
    jobs: app.jobs,
    job_post_id: app.jobPostId,
    status: app.status,
    current_stage: app.currentStage,
    answers: app.answers,
    prospective_office: null,
    prospective_department: null,
    prospect_detail: { prospect_pool: null, prospect_stage: null, prospect_owner: null },
    ...customFields(app.customFields),
    attachments: [],
  }
}

/** The offer object (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_offers.md, "The offer object"); `sent_at` and `starts_at` are dates, not timestamps. */
export function renderOffer(offer: OfferRecord, state: GreenhouseState): Record<string, unknown> {
  const app = state.applications.get(offer.applicationId)
  return {
    id: offer.id,
    version: offer.version,
    application_id: offer.applicationId,
    job_id: app?.jobs[0]?.id ?? null,
    candidate_id: app?.candidateId ?? null,
    opening: null,
    created_at: iso(offer.createdAt),
    updated_at: iso(offer.updatedAt),
    sent_at: offer.sentAt,
    resolved_at: iso(offer.resolvedAt),
    starts_at: offer.startsAt,
    status: offer.status,
    ...customFields(offer.customFields),
  }
}

/** The candidate object, its `applications` embedded (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_candidates.md, "The candidate object"). */
export function renderCandidate(candidate: CandidateRecord, state: GreenhouseState): Record<string, unknown> {
  const applications = candidate.applicationIds
    .map((id) => state.applications.get(id))
    .filter((a): a is ApplicationRecord => a !== undefined)
  return {
    id: candidate.id,
    first_name: candidate.firstName,
    last_name: candidate.lastName,
    company: null,
    title: null,
    created_at: iso(candidate.createdAt),
    updated_at: iso(candidate.updatedAt),
    last_activity: iso(candidate.updatedAt),
    is_private: false,
    photo_url: null,
    attachments: [],
    application_ids: applications.map((a) => a.id),
    phone_numbers: [],
    addresses: [],
    email_addresses: [{ value: `candidate${candidate.id}@example.com`, type: 'personal' }],
    website_addresses: [],
    social_media_addresses: [],
    recruiter: null,
    coordinator: null,
    can_email: true,
    tags: [],
    // Embedded applications come without `custom_fields`/`keyed_custom_fields`: the candidate object's
    // example leaves them out of its applications (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_candidates.md, "The candidate object").
    applications: applications.map((a) => {
      const { custom_fields: _fields, keyed_custom_fields: _keyed, ...embedded } = renderApplication(a)
      return embedded
    }),
    custom_fields: {},
    keyed_custom_fields: {},
  }
}

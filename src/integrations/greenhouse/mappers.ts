import type { UnifiedRecord } from '../../models/index.js'
import type { GreenhouseApplication, GreenhouseOffer } from './types.js'

/** A Harvest timestamp (ISO-8601 UTC) or calendar date as a Date; undefined when absent or unreadable. */
export function parseGreenhouseTime(value: string | null | undefined): Date | undefined {
  if (!value) return undefined
  // A bare date (an `_on` field) is that calendar day; read as its UTC midnight.
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

const idText = (value: number | null | undefined) =>
  value === null || value === undefined ? undefined : String(value)

/**
 * The unified status of an application: hired and rejected as such. An active application's stage is only
 * an id in v3 (`current_stage_id`), so no unified stage status is claimed for it.
 */
export function unifiedStatusOf(app: Pick<GreenhouseApplication, 'status'>): string | undefined {
  if (app.status === 'hired') return 'HIRED'
  if (app.status === 'rejected') return 'REJECTED'
  return undefined
}

/** The unified statuses Greenhouse can filter by, and its `status` for each. */
export const STATUS_FILTERS: Readonly<Record<string, string>> = { HIRED: 'hired', REJECTED: 'rejected' }

/**
 * One offer version. Greenhouse's `unresolved` is SENT once it has a `sent_on`, else CREATED; `resolved_at`
 * is when it was accepted or rejected. `deprecated` (superseded by a newer version) has no unified
 * equivalent and passes through as Greenhouse names it.
 */
export function fromGreenhouseOffer(offer: GreenhouseOffer): Record<string, unknown> {
  const resolved = parseGreenhouseTime(offer.resolved_at)
  const status =
    offer.status === 'unresolved'
      ? offer.sent_on
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
    sent_at: parseGreenhouseTime(offer.sent_on),
    start_at: parseGreenhouseTime(offer.start_on),
    ...(offer.status === 'accepted' ? { accepted_at: resolved } : {}),
    ...(offer.status === 'rejected' ? { rejected_at: resolved } : {}),
    status,
  }
}

/**
 * An application as the unified model has it. v3 gives every resource `created_at` and `updated_at`
 * (https://harvestdocs.greenhouse.io/docs/standardizations), which are what its `created_at`/`updated_at`
 * filters read. Related records are ids only in v3 (the source, the stage, the rejection details are
 * resources of their own), so `source`, `original_substatus` and `rejected_reason` are not filled.
 */
export function fromGreenhouseApplication(app: GreenhouseApplication): UnifiedRecord {
  return {
    id: String(app.id),
    created_at: parseGreenhouseTime(app.created_at),
    updated_at: parseGreenhouseTime(app.updated_at),
    applied_at: parseGreenhouseTime(app.applied_at),
    candidate_id: idText(app.candidate_id),
    job_id: idText(app.job_id),
    user_id: idText(app.recruiter_id),
    status: unifiedStatusOf(app),
    original_status: app.status ?? undefined,
    rejected_at: parseGreenhouseTime(app.rejected_at),
    raw: app,
  }
}

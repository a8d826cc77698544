import type { UnifiedRecord } from '../../models/index.js'
import { statusOfStageName } from '../ats-stages.js'
import type {
  LeverApplication,
  LeverArchiveReason,
  LeverOffer,
  LeverOpportunity,
  LeverStage,
} from './types.js'

/** A Lever time (milliseconds since the epoch) as a Date. */
export function fromLeverMillis(value: number | null | undefined): Date | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value) : undefined
}

/** What turns stage and archive-reason ids into meaning: the account's stages and archive reasons. */
export interface LeverLookups {
  readonly stages: ReadonlyMap<string, LeverStage>
  readonly reasons: ReadonlyMap<string, LeverArchiveReason>
}

const expanded = (apps: LeverOpportunity['applications']): LeverApplication[] =>
  (apps ?? []).filter((a): a is LeverApplication => typeof a === 'object' && a !== null)

/**
 * An opportunity (a candidate considered for a job) as an application. Archived opportunities are HIRED or
 * REJECTED by their archive reason's type (`hired`, `non-hired`), with the archive time as `hired_at` or
 * `rejected_at`; an active one's status comes from its stage name where that means a unified status.
 * `candidate_id` is the contact (the person across opportunities); `job_id` the posting of its one
 * application (read with `expand=applications`); `user_id` the opportunity's owner.
 */
export function fromLeverOpportunity(o: LeverOpportunity, lookups: LeverLookups): UnifiedRecord {
  const stage = o.stage ? lookups.stages.get(o.stage) : undefined
  const reason = o.archived?.reason ? lookups.reasons.get(o.archived.reason) : undefined
  const archivedAt = fromLeverMillis(o.archived?.archivedAt)
  const hired = o.archived && reason?.type === 'hired'
  const rejected = o.archived && reason?.type === 'non-hired'
  const apps = expanded(o.applications)
  const postings = apps.map((a) => a.posting).filter((p): p is string => typeof p === 'string')
  return {
    id: o.id,
    created_at: fromLeverMillis(o.createdAt),
    updated_at: fromLeverMillis(o.updatedAt),
    applied_at: fromLeverMillis(apps[0]?.createdAt),
    candidate_id: o.contact ?? undefined,
    job_id: postings.length === 1 ? postings[0] : undefined,
    user_id: o.owner ?? undefined,
    source: o.sources?.[0],
    status: hired ? 'HIRED' : rejected ? 'REJECTED' : o.archived ? undefined : statusOfStageName(stage?.text),
    original_status: stage?.text ?? o.stage ?? undefined,
    original_substatus: o.archived ? (reason?.text ?? o.archived.reason ?? undefined) : undefined,
    hired_at: hired ? archivedAt : undefined,
    rejected_at: rejected ? archivedAt : undefined,
    rejected_reason: rejected ? (reason?.text ?? undefined) : undefined,
    raw: o,
  }
}

/** Lever's offer statuses onto the unified ones; `denied` (approval refused inside the company) passes through. */
const OFFER_STATUSES: Readonly<Record<string, string>> = {
  draft: 'CREATED',
  'approval-sent': 'CREATED',
  approved: 'CREATED',
  sent: 'SENT',
  'sent-manually': 'SENT',
  opened: 'SENT',
  signed: 'ACCEPTED',
}

export function fromLeverOffer(offer: LeverOffer): Record<string, unknown> {
  const status = offer.status ?? undefined
  return {
    id: offer.id,
    created_at: fromLeverMillis(offer.createdAt),
    status: status === undefined ? undefined : (OFFER_STATUSES[status] ?? status),
    creator_user_id: offer.creator ?? undefined,
    sent_at: fromLeverMillis(offer.sentDocument?.uploadedAt),
    accepted_at: status === 'signed' ? fromLeverMillis(offer.signedDocument?.uploadedAt) : undefined,
  }
}

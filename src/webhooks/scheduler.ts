import type { JobQueue } from '../jobs/index.js'
import type { Db } from '../store/index.js'
import type { DeliveryStore } from './delivery-store.js'
import { dueInTurns } from './due-in-turns.js'

export const POLL_JOB = 'webhook-poll'
export const DELIVER_JOB = 'webhook-deliver'

/** What a webhook job needs to know of its webhook: which one, and whose (its slots are shared by workspace). */
export interface WebhookJobSubject {
  readonly id: string
  readonly workspace_id: string
}

/** Asks for a webhook's job to run soon (its poll, or its deliveries). */
export type RequestWebhookJob = (webhook: WebhookJobSubject) => Promise<void>

/** Work items found per look; the rest waits for the next tick rather than one huge query. */
const BATCH = 500

/**
 * Turns what the database says is due into jobs: polls whose time has come and deliveries whose next
 * attempt has. Every process looks (the database is the schedule, so a restart or a dead process loses
 * nothing); the job queue and the leases make the extra looks harmless. Each job names its workspace, so
 * the queue shares its slots between workspaces (JobPlace).
 */
export class WebhookScheduler {
  constructor(
    private readonly db: Db,
    private readonly deliveries: DeliveryStore,
    private readonly jobs: JobQueue,
    private readonly clock: () => number = Date.now,
  ) {}

  async tick(): Promise<void> {
    const now = new Date(this.clock()).toISOString()
    // Each with its turn in its workspace, earliest turns first (dueInTurns, DeliveryStore.dueWebhooks): a
    // workspace with thousands of due webhooks takes the batch's later turns, not the whole batch.
    const duePolls = await dueInTurns(
      this.db,
      { due: 'next_check_at', leaseUntil: 'poll_lease_until' },
      now,
      BATCH,
    )
    for (const { id, workspace_id, turn } of duePolls) {
      await this.jobs.enqueue(POLL_JOB, id, { group: workspace_id, turn })
    }
    for (const { id, workspace_id, turn } of await this.deliveries.dueWebhooks(now, BATCH)) {
      await this.jobs.enqueue(DELIVER_JOB, id, { group: workspace_id, turn })
    }
  }
}

import type { JobQueue } from '../jobs/index.js'
import type { Db } from '../store/index.js'
import { type DeliveryStore, turnInWorkspace } from './delivery-store.js'

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
    for (const { id, workspace_id, turn } of await duePollsQuery(this.db, now).execute()) {
      await this.jobs.enqueue(POLL_JOB, id, { group: workspace_id, turn: Number(turn) })
    }
    for (const { id, workspace_id, turn } of await this.deliveries.dueWebhooks(now, BATCH)) {
      await this.jobs.enqueue(DELIVER_JOB, id, { group: workspace_id, turn })
    }
  }
}

/**
 * Webhooks whose check is due and whose poll lease is free, each with its turn in its workspace, earliest
 * turns first (see DeliveryStore.dueWebhooks): a workspace with thousands of due webhooks takes the batch's
 * later turns, not the whole batch. Only each workspace's first BATCH due webhooks are ranked, read in
 * order through webhooks_workspace_due_idx: no webhook past them could make the batch, and ranking every
 * due webhook of every workspace made each tick, on SQLite the event loop with it, as slow as one key
 * holder's webhooks were many (10,000 due: 23 ms a tick; about 6 ms this way).
 */
export function duePollsQuery(db: Db, now: string) {
  return db
    .with('due_workspaces', (db) =>
      db.selectFrom('webhooks').select('workspace_id').distinct().where('next_check_at', '<=', now),
    )
    .selectFrom('due_workspaces')
    .innerJoin('webhooks as w', (join) =>
      join.on((eb) =>
        eb(
          'w.id',
          'in',
          eb
            .selectFrom('webhooks as first')
            .select('first.id')
            .whereRef('first.workspace_id', '=', 'due_workspaces.workspace_id')
            .where('first.next_check_at', '<=', now)
            .where('first.is_paused', '=', 0)
            .where((eb) =>
              eb.or([eb('first.poll_lease_until', 'is', null), eb('first.poll_lease_until', '<', now)]),
            )
            .orderBy('first.next_check_at')
            .orderBy('first.id')
            .limit(BATCH),
        ),
      ),
    )
    .select([
      'w.id',
      'w.workspace_id',
      turnInWorkspace('w.workspace_id', 'w.next_check_at', 'w.id').as('turn'),
    ])
    .orderBy('turn')
    .orderBy('w.next_check_at')
    .limit(BATCH)
}

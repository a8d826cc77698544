import { newId } from '../crypto/ids.js'
import { LoopSlices, nextTurn } from '../loop-slices.js'
import type { Db } from '../store/index.js'
import { insertPendingDeliveries } from './delivery-store.js'
import type { DeliveryPage } from './pages.js'

export class LeaseLostError extends Error {
  constructor(webhookId: string) {
    super(`webhook ${webhookId}: the poll lease was taken over; this poll's results are dropped`)
  }
}

export interface CheckResult {
  readonly webhookId: string
  readonly leaseToken: string
  readonly pages: readonly DeliveryPage[]
  /** Fingerprints to write (new or changed) and keys to forget; undefined when not fingerprinting. */
  readonly fingerprints?: { readonly upsert: ReadonlyMap<string, string>; readonly remove: readonly string[] }
  /** The start of this check: the next `updated_gte`. */
  readonly startedAt: string
  readonly nextCheckAt: string | null
  readonly run: { readonly dueAt: string; readonly runner: string; readonly finishedAt: string }
}

const CHUNK = 300

/**
 * Fingerprint rows written between two turns of the event loop: a first check of 100,100 records writes as
 * many, and SQLite runs synchronously, so writing them at once held every request of the process for half a
 * second or more (measured: 0.5 s on a quiet 2-core machine).
 */
const FINGERPRINT_ROWS_PER_TURN = 3 * CHUNK

/** Fingerprint rows read between two turns of the event loop (some milliseconds of SQLite's work). */
const FINGERPRINTS_PER_READ = 5000

/**
 * Commits one check atomically: its deliveries, the fingerprints it saw, and the advanced read position.
 * The read position therefore never moves past changes that are not stored for delivery, and a check whose
 * lease was taken over (its process stalled past the expiry) commits nothing.
 */
export async function commitCheck(db: Db, r: CheckResult): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // The update comes first: it locks the row, so the lease cannot change hands before the commit.
    const claimed = await trx
      .updateTable('webhooks')
      .set({
        read_cursor: r.startedAt,
        checked_at: r.startedAt,
        initial_done: 1,
        next_check_at: r.nextCheckAt,
        poll_lease: null,
        poll_lease_until: null,
      })
      .where('id', '=', r.webhookId)
      .where('poll_lease', '=', r.leaseToken)
      .executeTakeFirst()
    if (Number(claimed.numUpdatedRows) !== 1) throw new LeaseLostError(r.webhookId)

    await insertPendingDeliveries(trx, r.webhookId, r.pages, r.run.finishedAt)

    if (r.fingerprints) {
      const upserts = [...r.fingerprints.upsert].map(([record_id, fingerprint]) => ({
        webhook_id: r.webhookId,
        record_id,
        fingerprint,
      }))
      const slices = new LoopSlices(FINGERPRINT_ROWS_PER_TURN, Number.POSITIVE_INFINITY)
      for (let i = 0; i < upserts.length; i += CHUNK) {
        const chunk = upserts.slice(i, i + CHUNK)
        await trx
          .insertInto('webhook_fingerprints')
          .values(chunk)
          .onConflict((oc) =>
            oc
              .columns(['webhook_id', 'record_id'])
              .doUpdateSet((eb) => ({ fingerprint: eb.ref('excluded.fingerprint') })),
          )
          .execute()
        await slices.spend(chunk.length)
      }
      for (let i = 0; i < r.fingerprints.remove.length; i += CHUNK) {
        const chunk = r.fingerprints.remove.slice(i, i + CHUNK)
        await trx
          .deleteFrom('webhook_fingerprints')
          .where('webhook_id', '=', r.webhookId)
          .where('record_id', 'in', chunk)
          .execute()
        await slices.spend(chunk.length)
      }
    }

    await trx
      .insertInto('webhook_runs')
      .values({
        id: newId('run'),
        webhook_id: r.webhookId,
        due_at: r.run.dueAt,
        started_at: r.startedAt,
        finished_at: r.run.finishedAt,
        runner: r.run.runner,
        outcome: 'ok',
        changes: r.pages.reduce((n, p) => n + p.records.length, 0),
      })
      .execute()
    return r.pages.length
  })
}

/**
 * The fingerprints a webhook saw at its last check, read FINGERPRINTS_PER_READ at a time in key order with a
 * turn of the event loop between reads. Only the check holding the webhook's poll lease writes them, so the
 * pages see one state.
 */
export async function storedFingerprints(db: Db, webhookId: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>()
  let after: string | undefined
  for (;;) {
    let query = db
      .selectFrom('webhook_fingerprints')
      .select(['record_id', 'fingerprint'])
      .where('webhook_id', '=', webhookId)
    if (after !== undefined) query = query.where('record_id', '>', after)
    const rows = await query.orderBy('record_id').limit(FINGERPRINTS_PER_READ).execute()
    for (const row of rows) seen.set(row.record_id, row.fingerprint)
    const last = rows.at(-1)
    if (rows.length < FINGERPRINTS_PER_READ || last === undefined) return seen
    after = last.record_id
    await nextTurn()
  }
}

/** A check that failed to read: the read position stays, the next check comes at the next interval. */
export async function recordFailedCheck(
  db: Db,
  r: {
    webhookId: string
    leaseToken: string
    startedAt: string
    nextCheckAt: string | null
    dueAt: string
    runner: string
    finishedAt: string
    error: string
  },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const released = await trx
      .updateTable('webhooks')
      .set({ next_check_at: r.nextCheckAt, poll_lease: null, poll_lease_until: null })
      .where('id', '=', r.webhookId)
      .where('poll_lease', '=', r.leaseToken)
      .executeTakeFirst()
    if (Number(released.numUpdatedRows) !== 1) return
    await trx
      .insertInto('webhook_runs')
      .values({
        id: newId('run'),
        webhook_id: r.webhookId,
        due_at: r.dueAt,
        started_at: r.startedAt,
        finished_at: r.finishedAt,
        runner: r.runner,
        outcome: `error: ${r.error}`.slice(0, 500),
        changes: 0,
      })
      .execute()
  })
}

/** Keeps the run history of a webhook short: the newest `keep` runs. */
export async function pruneRuns(db: Db, webhookId: string, keep = 50): Promise<void> {
  const cutoff = await db
    .selectFrom('webhook_runs')
    .select('started_at')
    .where('webhook_id', '=', webhookId)
    .orderBy('started_at', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst()
  if (!cutoff) return
  await db
    .deleteFrom('webhook_runs')
    .where('webhook_id', '=', webhookId)
    .where('started_at', '<=', cutoff.started_at)
    .execute()
}

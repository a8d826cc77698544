import { randomBytes } from 'node:crypto'
import { type Expression, type QueryCreator, sql } from 'kysely'
import { newId } from '../crypto/ids.js'
import { LoopSlices } from '../loop-slices.js'
import {
  type Database,
  type Db,
  groupedWrites,
  type PreparedQuery,
  preparedQuery,
  sqliteHandleOf,
  type WebhookDeliveryTable,
} from '../store/index.js'
import type { DeliveryPage } from './pages.js'

/**
 * The row of a new delivery: pending, due at once, with its own id and nonce; `position` orders a check's pages.
 * Only pending deliveries are stored: one the receiver accepted is removed (markDelivered), and so is one
 * given up after the last attempt (giveUp). Older versions kept both, with their data, as `delivered` and
 * `failed` (removed by migrations 0010 and 0012).
 */
function pendingDeliveryRow(
  webhookId: string,
  page: DeliveryPage,
  position: number,
  createdAt: string,
): WebhookDeliveryTable {
  return {
    id: newId('dl'),
    webhook_id: webhookId,
    type: page.type,
    data: JSON.stringify(page.records),
    nonce: randomBytes(24).toString('base64url'),
    record_count: page.records.length,
    position,
    status: 'pending',
    attempts: 0,
    next_attempt_at: createdAt,
    last_status: null,
    last_error: null,
    created_at: createdAt,
    delivered_at: null,
  }
}

/**
 * The most webhooks holding deliveries that one delivery look visits (DeliveryStore.dueWebhooks): about 10 ms
 * of SQLite's event loop when all of them are due, and about 30 ms of PostgreSQL's time (BENCHMARKS.md, "The
 * scheduler's looks").
 */
export const HOLDERS_PER_LOOK = 2_000

/** Rows per insert: 14 columns each stays well under SQLite's 32,766 bound variables per statement. */
const ROWS_PER_INSERT = 300

/**
 * The most delivery text written out and inserted between two turns of the event loop: a check's pages can
 * hold 100,100 records, and writing them as JSON and inserting them at once (SQLite runs synchronously) held
 * every request of the process. An insert statement also ends there, so a slice is one statement at most.
 */
const DELIVERY_TEXT_PER_TURN = 1024 * 1024

/**
 * Inserts the pending deliveries of `pages` inside the caller's transaction, in statements SQLite can bind,
 * letting the event loop turn every ROWS_PER_INSERT rows or DELIVERY_TEXT_PER_TURN of their data. On SQLite
 * the caller's transaction keeps the store's one connection meanwhile: other queries wait for it, requests
 * that need none go on.
 */
export async function insertPendingDeliveries(
  trx: Db,
  webhookId: string,
  pages: readonly DeliveryPage[],
  createdAt: string,
): Promise<void> {
  const slices = new LoopSlices(ROWS_PER_INSERT, DELIVERY_TEXT_PER_TURN)
  let rows: WebhookDeliveryTable[] = []
  for (const [position, page] of pages.entries()) {
    const row = pendingDeliveryRow(webhookId, page, position, createdAt)
    rows.push(row)
    const turn = slices.spend(1, row.data.length)
    if (!turn) continue
    await trx.insertInto('webhook_deliveries').values(rows).execute()
    rows = []
    await turn
  }
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute()
}

/**
 * Pending deliveries. A delivery is written (in the same transaction as the read position it comes from)
 * before it is attempted, keeps its id and nonce for every attempt, and is removed when the receiver
 * accepted it (markDelivered) or its attempts ran out (giveUp): its data is the customer's records.
 */
export class DeliveryStore {
  private readonly pendingQuery: PreparedQuery<{ webhookId: string; limit: number }, WebhookDeliveryTable>
  private readonly deliveredQuery: PreparedQuery<{ id: string }, unknown>
  /** PostgreSQL: a whole group of marks in one statement. */
  private readonly deliveredGroupQuery: PreparedQuery<{ ids: string[] }, { id: string }>
  /** Deliveries of different webhooks accepted at the same moment are marked with one commit. */
  private readonly delivered: (id: string) => Promise<number>
  /** Where this process's next delivery look walks from: after this webhook id, or from the first holder. */
  private walkAfter: string | undefined

  constructor(
    private readonly db: Db,
    private readonly holdersPerLook = HOLDERS_PER_LOOK,
  ) {
    this.pendingQuery = preparedQuery(db, (arg) =>
      db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', arg('webhookId'))
        .where('status', '=', 'pending')
        .orderBy('created_at')
        .orderBy('position')
        .limit(arg('limit')),
    )
    this.deliveredQuery = preparedQuery(db, (arg) =>
      db.deleteFrom('webhook_deliveries').where('id', '=', arg('id')),
    )
    this.deliveredGroupQuery = preparedQuery(db, (arg) => ({
      compile: () =>
        sql<{ id: string }>`
          delete from webhook_deliveries as d
          using (select set_config('synchronous_commit', 'off', true)) as relaxed
          where d.id = any(${arg('ids')}::text[])
          returning d.id`.compile(db),
    }))
    this.delivered = groupedWrites((ids) =>
      sqliteHandleOf(db)
        ? this.deliveredQuery.runAll(ids.map((id) => ({ id })))
        : this.markAllDeliveredOnPostgres(ids),
    )
  }

  /**
   * One statement for the whole group: a transaction of one delete each would cost a round trip per
   * delivery again. Answers, per mark, how many rows it removed (0 when the delivery is gone).
   *
   * Its commit does not wait for the WAL flush (`synchronous_commit` off for this transaction only, set
   * inside the statement so it stays one round trip): the next delivery of a webhook waits for its mark, and
   * a flush per mark (milliseconds on a virtual disk) was most of each delivery's time. Only a crash of the
   * PostgreSQL server or its host (within about three wal_writer_delays) loses such commits, and then the
   * latest ones in commit order: each webhook's deliveries from its first lost mark on are sent again, in
   * order, with their ids and nonces (README, "Retries and repeats"). The deliveries themselves are written
   * with a normal commit. (SQLite's WAL with synchronous=NORMAL makes the same trade for every commit.)
   */
  private async markAllDeliveredOnPostgres(ids: readonly string[]): Promise<number[]> {
    const rows = await this.deliveredGroupQuery.all({ ids: [...ids] })
    const removed = new Set(rows.map((r) => r.id))
    return ids.map((id) => (removed.has(id) ? 1 : 0))
  }

  // Both run once or more per delivery: compiled and prepared once (preparedQuery).

  /** The oldest undelivered pages of a webhook, in the order they go out: deliveries of one webhook keep it. */
  async pending(webhookId: string, limit: number): Promise<WebhookDeliveryTable[]> {
    return this.pendingQuery.all({ webhookId, limit })
  }

  /** The oldest undelivered page of a webhook. */
  async head(webhookId: string): Promise<WebhookDeliveryTable | undefined> {
    return (await this.pending(webhookId, 1))[0]
  }

  /**
   * Records that the receiver accepted a delivery by removing it: its data is the customer's records, which
   * Unigate keeps no longer than it needs them (README, "Retries and repeats"), and nothing reads a delivered
   * page again. False when the delivery is gone: its webhook was deleted meanwhile.
   */
  async markDelivered(id: string): Promise<boolean> {
    return (await this.delivered(id)) > 0
  }

  /** Records a failed attempt of a delivery that will be tried again at `nextAttemptAt`. */
  async markFailed(
    id: string,
    outcome: { status?: number; error: string; nextAttemptAt: string },
  ): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_status: outcome.status ?? null,
        last_error: outcome.error.slice(0, 500),
        next_attempt_at: outcome.nextAttemptAt,
      }))
      .where('id', '=', id)
      .execute()
  }

  /**
   * Removes a delivery whose attempts ran out: nothing sends or reads it again, and its data is the
   * customer's records, which Unigate keeps no longer than it needs them (README, "What stays stored"). The
   * deliveries behind it are then free to go. False when it is gone already (its webhook was deleted).
   */
  async giveUp(id: string): Promise<boolean> {
    const removed = await this.db.deleteFrom('webhook_deliveries').where('id', '=', id).executeTakeFirst()
    return Number(removed.numDeletedRows) > 0
  }

  /**
   * Webhooks whose oldest pending delivery is due now and whose delivery lease is free, among the next
   * holders (webhooks with pending deliveries) of the walk: what the scheduler wakes up. The deliverer sends
   * a webhook's pages in order and stops at a head that is not due, so only the head counts. Each comes with
   * its turn in its workspace (0 for the workspace's longest due, 1 for the next…), and the `limit` taken are
   * the earliest turns first: every workspace's first webhook before any workspace's second, so one
   * workspace with many due webhooks cannot fill the batch.
   *
   * The look costs what it visits, not how many webhooks there are or hold deliveries: it walks at most
   * `holdersPerLook` holders (nextWalk, one index seek each) and probes each one's head
   * (webhook_deliveries_queue_idx). Visiting every holder cost each tick 173 ms of SQLite's event loop at
   * 100,000 holders none of them due, 375 ms all due, and PostgreSQL 0.76 and 1.15 s (BENCHMARKS.md, "The
   * scheduler's looks"): a receiver's outage across many webhooks made every process's every tick that slow.
   * Starting from every webhook probed each one on every tick, nothing pending or not; starting from every
   * due pending row made each tick as slow as the backlog of deliveries was long.
   */
  async dueWebhooks(
    now: string,
    limit: number,
  ): Promise<{ id: string; workspace_id: string; turn: number }[]> {
    const { from, until, holders } = await this.nextWalk()
    // Nothing stored (the common case): one look at the index, no second walk.
    if (holders === 0) return []
    const heads = this.db
      .withRecursive('holders(id, n)', (db) =>
        // Bounded by the last id the count visited, not by a count: holders stored meanwhile must not end the
        // walk before it (they would be skipped until the next round).
        webhooksWithDeliveries(db, from, 2 * this.holdersPerLook, until),
      )
      .selectFrom('holders as p')
      // CROSS JOIN: SQLite then keeps the walk as the outer loop (an inner join let it scan every webhook).
      .crossJoin('webhooks as w')
      .whereRef('w.id', '=', 'p.id')
      .select((eb) => [
        'w.id',
        'w.workspace_id',
        eb
          .selectFrom('webhook_deliveries as d')
          .select('d.next_attempt_at')
          .whereRef('d.webhook_id', '=', 'w.id')
          .where('d.status', '=', 'pending')
          .orderBy('d.created_at')
          .orderBy('d.position')
          .limit(1)
          .as('due'),
      ])
      .where('w.is_paused', '=', 0)
      .where((eb) =>
        eb.or([eb('w.delivery_lease_until', 'is', null), eb('w.delivery_lease_until', '<', now)]),
      )
    const rows = await this.db
      .selectFrom(heads.as('h'))
      .select(['h.id', 'h.workspace_id', turnInWorkspace('h.workspace_id', 'h.due', 'h.id').as('turn')])
      .where('h.due', '<=', now)
      .orderBy('turn')
      .orderBy('h.due')
      .limit(limit)
      .execute()
    return rows.map((r) => ({ id: r.id, workspace_id: r.workspace_id, turn: Number(r.turn) }))
  }

  /**
   * Where this look's walk starts (after that webhook id, or from the first holder when undefined) and how
   * many holders it visits, moving the process's walk on: the next look starts after the last holder this
   * one visits, or from the first once this one reaches the last. So a look visits at most `holdersPerLook`
   * holders, and with no more holders than that, every look visits them all; with more, each is visited
   * once every holders / holdersPerLook looks (every 50 seconds at 100,000 holders, one look a second),
   * which delays finding a due retry (a minute or more after the attempt it follows) by at most that much.
   * New deliveries seldom wait for a look: whoever stores them asks for their delivery at once (only pages
   * stored just as another run of their webhook was ending, its lease still held, are left to a look).
   *
   * The same walk, counted rather than returned (one row): the look then walks it again with the probes. A
   * look that took the visited ids back and probed them by an `in` list cost twice the time of the one walk
   * at 1,000 holders.
   */
  private async nextWalk(): Promise<{
    from: string | undefined
    until: string | undefined
    holders: number
  }> {
    const from = this.walkAfter
    const most = this.holdersPerLook
    // One holder more than the look visits tells whether the walk reaches the last one.
    const extent = await this.db
      .withRecursive('holders(id, n)', (db) => webhooksWithDeliveries(db, from, most + 1))
      .selectFrom('holders')
      .select((eb) => [
        eb.fn.count<number | string>('holders.id').as('visited'),
        eb.fn.max(eb.case().when('holders.n', '<=', most).then(eb.ref('holders.id')).end()).as('last'),
      ])
      .executeTakeFirst()
    const visited = Number(extent?.visited ?? 0)
    this.walkAfter = visited > most ? (extent?.last ?? undefined) : undefined
    return { from, until: this.walkAfter, holders: Math.min(visited, most) }
  }

  async byWebhook(webhookId: string): Promise<WebhookDeliveryTable[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at')
      .orderBy('position')
      .execute()
  }
}

/**
 * Up to `most` distinct webhooks that hold stored (pending) deliveries, after webhook id `after` (or from the
 * first) and, when given, up to webhook id `until`, as a recursive walk of webhook_deliveries_queue_idx: each step seeks the first webhook id after the
 * last one, so the walk costs one seek per such webhook however many deliveries each holds. Neither SQLite
 * nor PostgreSQL (before 18) skips through an index on its own: a DISTINCT would read every row. A walk that
 * reaches the last holder ends with one NULL id.
 */
function webhooksWithDeliveries(
  db: QueryCreator<Database & { holders: { id: string | null; n: number } }>,
  after: string | undefined,
  most: number,
  until?: string,
) {
  const next = (last: Expression<string | null> | string | undefined) => {
    let query = db.selectFrom('webhook_deliveries as d').select('d.webhook_id')
    if (last !== undefined) query = query.where('d.webhook_id', '>', last as Expression<string>)
    if (until !== undefined) query = query.where('d.webhook_id', '<=', until)
    return query.orderBy('d.webhook_id').limit(1)
  }
  return db
    .selectNoFrom(() => [next(after).as('id'), sql<number>`1`.as('n')])
    .unionAll(
      db
        .selectFrom('holders as p')
        .select((eb) => [next(eb.ref('p.id')).as('id'), sql<number>`${eb.ref('p.n')} + 1`.as('n')])
        .where('p.id', 'is not', null)
        .where('p.n', '<', most),
    )
}

/**
 * A due webhook's turn in its workspace, from 0, by when it fell due (then id): the fair order of the
 * scheduler's looks, on SQLite and PostgreSQL alike (window functions, computed after the look's filters).
 */
export function turnInWorkspace(workspace: string, due: string, id: string) {
  return sql<number>`row_number() over (partition by ${sql.ref(workspace)} order by ${sql.ref(due)}, ${sql.ref(id)}) - 1`
}

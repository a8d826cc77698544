/**
 * What one tick of the webhook scheduler costs the database (and, on SQLite, the event loop): its look for
 * due polls and its look for due deliveries, timed apart, median of BENCH_TICKS (default 9) ticks.
 *
 *   npx tsx bench/scheduler-looks.ts            # BENCH_SIZES=1000,10000,100000 BENCH_WORKSPACES=10
 *
 * For each size N, N webhooks spread over BENCH_WORKSPACES workspaces (at most 10,000 each, as
 * UNIGATE_WEBHOOK_MAX_PER_WORKSPACE allows), on a temporary SQLite file and on a fresh PostgreSQL database
 * (BENCH_DATABASE_URL), in three states:
 * - idle: no poll due, no delivery pending (the common case);
 * - deliveries waiting: every webhook holds a pending delivery whose retry is not due yet;
 * - all due (after an outage): every poll due, and every webhook's head delivery due.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import type { JobQueue } from '../src/jobs/index.js'
import { type Db, migrateToLatest, openDatabase, sqliteHandleOf } from '../src/store/index.js'
import { DeliveryStore } from '../src/webhooks/delivery-store.js'
import { WebhookScheduler } from '../src/webhooks/scheduler.js'
import { withFreshDatabase } from './fresh-database.js'

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 10)
const TICKS = Number(process.env.BENCH_TICKS ?? 9)
const ROWS_PER_INSERT = 500

const iso = (ms: number) => new Date(ms).toISOString()

async function insertChunked(db: Db, table: 'webhooks' | 'webhook_deliveries', rows: object[]) {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + ROWS_PER_INSERT) as never)
      .execute()
  }
}

/** N webhooks over the workspaces, none due (their next check an hour away) and nothing pending. */
async function build(db: Db, n: number, now: number): Promise<string[]> {
  const workspaces = Math.max(WORKSPACES, Math.ceil(n / 10_000))
  const at = iso(now)
  for (let w = 0; w < workspaces; w++) {
    await db
      .insertInto('workspaces')
      .values({
        id: `ws_${w}`,
        name: `w${w}`,
        secret_sealed: 'x',
        slow_fields_opt_in: 0,
        allowed_redirect_origins: '[]',
        created_at: at,
        updated_at: at,
      })
      .execute()
    await db
      .insertInto('connections')
      .values({
        id: `conn_${w}`,
        workspace_id: `ws_${w}`,
        integration_type: 'posthog',
        categories: '[]',
        permissions: '[]',
        external_xref: null,
        environment: 'Production',
        auth_sealed: 'x',
        settings: '{}',
        is_paused: 0,
        created_at: at,
        updated_at: at,
        last_healthy_at: null,
        last_unhealthy_at: null,
        last_unhealthy_code: null,
      })
      .execute()
  }
  const ids = Array.from({ length: n }, (_, i) => `wh_${String(i).padStart(6, '0')}`)
  const rows = ids.map((id, i) => ({
    id,
    workspace_id: `ws_${i % workspaces}`,
    connection_id: `conn_${i % workspaces}`,
    integration_type: 'posthog',
    object_type: 'analytics_event',
    event: 'created',
    hook_url: 'https://receiver.example/hook',
    interval: 60,
    page_max_limit: 100,
    filters: '{}',
    webhook_type: 'virtual',
    environment: 'Production',
    next_check_at: iso(now + 3_600_000 + i),
    created_at: at,
    updated_at: at,
  }))
  await insertChunked(db, 'webhooks', rows)
  return ids
}

/** One pending delivery per webhook, next attempt at `dueAt(i)`. */
async function addPending(db: Db, ids: string[], now: number, dueAt: (i: number) => string) {
  const rows = ids.map((id, i) => ({
    id: `dl_${id}`,
    webhook_id: id,
    type: 'analytics_event.created',
    data: '[]',
    nonce: 'n',
    record_count: 0,
    position: 0,
    status: 'pending',
    attempts: 1,
    next_attempt_at: dueAt(i),
    created_at: iso(now - 60_000),
  }))
  await insertChunked(db, 'webhook_deliveries', rows)
}

/** PostgreSQL's planner statistics, as autovacuum would have them after such writes; SQLite keeps none. */
async function settle(db: Db) {
  if (!sqliteHandleOf(db)) await sql`analyze`.execute(db)
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Median time of each look over TICKS ticks, and what each look found. */
async function timeLooks(db: Db, now: number) {
  let polls = 0
  let deliveries = 0
  const jobs = {
    kind: 'in-process',
    enqueue: async (kind: string) => {
      if (kind === 'webhook-poll') polls++
      else deliveries++
    },
  } as unknown as JobQueue
  const store = new DeliveryStore(db)
  const scheduler = new WebhookScheduler(db, store, jobs, () => now)
  const tick: number[] = []
  const deliveryLook: number[] = []
  for (let i = 0; i < TICKS; i++) {
    polls = 0
    deliveries = 0
    let t = performance.now()
    await scheduler.tick()
    tick.push(performance.now() - t)
    t = performance.now()
    await store.dueWebhooks(iso(now), 500)
    deliveryLook.push(performance.now() - t)
  }
  const all = median(tick)
  const delivery = median(deliveryLook)
  return { tickMs: all, pollLookMs: Math.max(0, all - delivery), deliveryLookMs: delivery, polls, deliveries }
}

async function runOn(label: string, n: number, open: () => Promise<{ db: Db; done: () => Promise<void> }>) {
  {
    const { db, done } = await open()
    try {
      const now = Date.now()
      const ids = await build(db, n, now)
      const report = (state: string, r: Awaited<ReturnType<typeof timeLooks>>) =>
        console.log(
          `${label.padEnd(10)} ${String(n).padStart(7)} webhooks  ${state.padEnd(20)} tick ${r.tickMs.toFixed(2).padStart(8)} ms` +
            `  (polls ${r.pollLookMs.toFixed(2).padStart(8)} ms → ${r.polls}, deliveries ${r.deliveryLookMs.toFixed(2).padStart(8)} ms → ${r.deliveries})`,
        )
      await settle(db)
      report('idle', await timeLooks(db, now))
      await addPending(db, ids, now, () => iso(now + 600_000))
      await settle(db)
      report('deliveries waiting', await timeLooks(db, now))
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: iso(now - 1000) })
        .execute()
      await db
        .updateTable('webhooks')
        .set({ next_check_at: iso(now - 1000) })
        .execute()
      await settle(db)
      report('all due', await timeLooks(db, now))
    } finally {
      await done()
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'unigate-scheduler-bench-'))
try {
  for (const n of SIZES) {
    await runOn('sqlite', n, async () => {
      const db = openDatabase({ sqliteFile: join(dir, `${n}.db`) })
      await migrateToLatest(db)
      return { db, done: () => db.destroy() }
    })
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
for (const n of SIZES) {
  const outcome = await withFreshDatabase(async (url) => {
    await runOn('postgresql', n, async () => {
      const db = openDatabase({ databaseUrl: url, sqliteFile: ':memory:' })
      await migrateToLatest(db)
      return { db, done: () => db.destroy() }
    })
  })
  if ('unreachable' in outcome) {
    console.log(`postgresql skipped: ${outcome.unreachable}`)
    break
  }
}

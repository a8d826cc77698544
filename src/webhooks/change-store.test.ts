import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { turnsDuring } from '../../test/support/loop-turns.js'
import { type Db, migrateToLatest, openDatabase, sqliteHandleOf } from '../store/index.js'
import { commitCheck, storedFingerprints } from './change-store.js'
import { deliveryPages } from './pages.js'

const WEBHOOK = 'wh_many'
const LEASE = 'lease-1'
const AT = '2026-01-01T00:00:00.000Z'

/** A webhook row holding a poll lease; its workspace and connection rows are not this test's subject. */
async function leasedWebhook(db: Db): Promise<void> {
  sqliteHandleOf(db)!.pragma('foreign_keys = OFF')
  await db
    .insertInto('webhooks')
    .values({
      id: WEBHOOK,
      workspace_id: 'ws_1',
      connection_id: 'conn_1',
      integration_type: 'posthog',
      object_type: 'analytics_event',
      event: 'created',
      hook_url: 'https://receiver.example/hook',
      interval: 60,
      page_max_limit: 100,
      fields: null,
      filters: '{}',
      webhook_type: 'virtual',
      environment: 'Production',
      include_all: 1,
      initial_done: 0,
      is_healthy: 1,
      is_paused: 0,
      read_cursor: null,
      checked_at: null,
      next_check_at: AT,
      triggered_at: null,
      poll_lease: LEASE,
      poll_lease_until: '2099-01-01T00:00:00.000Z',
      delivery_lease: null,
      delivery_lease_until: null,
      delivery_failures: 0,
      read_failures: 0,
      native_sealed: null,
      native_call_at: null,
      native_subscribed_at: null,
      created_at: AT,
      updated_at: AT,
    })
    .execute()
}

const records = Array.from({ length: 100_100 }, (_, i) => ({
  id: `id-${String(i).padStart(6, '0')}`,
  created_at: AT,
  name: 'pageview',
  page_url: `https://example.com/p/${i}`,
}))

function commitFirstCheck(db: Db) {
  return commitCheck(db, {
    webhookId: WEBHOOK,
    leaseToken: LEASE,
    pages: deliveryPages(records, 100, 'initial'),
    fingerprints: { upsert: new Map(records.map((r) => [r.id, `fp-${r.id}`])), remove: [] },
    startedAt: AT,
    nextCheckAt: null,
    run: { dueAt: AT, runner: 'test', finishedAt: AT },
  })
}

describe('a check of 100,100 records on SQLite (the store runs synchronously)', () => {
  let dir: string
  let db: Db

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'unigate-change-store-'))
    db = openDatabase({ sqliteFile: join(dir, 'unigate.db') })
    await migrateToLatest(db)
    await leasedWebhook(db)
  })

  afterEach(async () => {
    await db.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  it('lets the event loop turn while it writes the deliveries and fingerprints, and writes them all', async () => {
    // Written at once, they held every request of the process for half a second on a quiet machine.
    const { result: pages, turns } = await turnsDuring(() => commitFirstCheck(db))
    expect(pages).toBe(1001)
    // 1,001 delivery rows in 300s and 100,100 fingerprints in 900s: over a hundred slices.
    expect(turns).toBeGreaterThanOrEqual(100)
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['position', 'type', 'record_count', 'data'])
      .where('webhook_id', '=', WEBHOOK)
      .orderBy('position')
      .execute()
    expect(deliveries.map((d) => d.position)).toEqual(Array.from({ length: 1001 }, (_, i) => i))
    expect(deliveries[0]).toMatchObject({ type: 'INITIAL-PARTIAL', record_count: 100 })
    expect(deliveries.at(-1)).toMatchObject({ type: 'INITIAL-COMPLETE', record_count: 100 })
    expect(JSON.parse(deliveries.at(-1)!.data)).toEqual(records.slice(100_000))
    const count = await db
      .selectFrom('webhook_fingerprints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(100_100)
  })

  it('reads them back whole, with turns of the event loop between reads', async () => {
    await commitFirstCheck(db)
    const { result: seen, turns } = await turnsDuring(() => storedFingerprints(db, WEBHOOK))
    expect(seen.size).toBe(100_100)
    expect(seen.get('id-000000')).toBe('fp-id-000000')
    expect(seen.get('id-100099')).toBe('fp-id-100099')
    expect(turns).toBeGreaterThanOrEqual(20)
  })
})

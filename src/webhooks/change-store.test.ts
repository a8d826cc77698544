import { describe, expect, it } from 'vitest'
import { turnsDuring } from '../../test/support/loop-turns.js'
import { propertyWebhookSpec, useStoredWebhook } from '../../test/support/stored-webhook.js'
import type { Db } from '../store/index.js'
import { commitCheck, storedFingerprints } from './change-store.js'
import { claimLease } from './leases.js'
import { deliveryPages } from './pages.js'

const LEASE = 'lease-1'
const AT = '2026-01-01T00:00:00.000Z'

const records = Array.from({ length: 100_100 }, (_, i) => ({
  id: `id-${String(i).padStart(6, '0')}`,
  created_at: AT,
  name: 'pageview',
  page_url: `https://example.com/p/${i}`,
}))

function commitFirstCheck(db: Db, webhookId: string) {
  return commitCheck(db, {
    webhookId,
    leaseToken: LEASE,
    pages: deliveryPages(records, 100, 'initial'),
    fingerprints: { upsert: new Map(records.map((r) => [r.id, `fp-${r.id}`])), remove: [] },
    startedAt: AT,
    nextCheckAt: null,
    run: { dueAt: AT, runner: 'test', finishedAt: AT },
  })
}

describe('a check of 100,100 records on SQLite (the store runs synchronously)', () => {
  const storedWebhook = useStoredWebhook('sqlite')

  /** The store and a webhook whose poll lease this test holds, as a running check does. */
  async function leased(): Promise<{ db: Db; webhookId: string }> {
    const { services, webhook } = await storedWebhook(propertyWebhookSpec('many'))
    const until = new Date(Date.now() + 3_600_000).toISOString()
    expect(await claimLease(services.db, 'poll', webhook.id, LEASE, new Date().toISOString(), until)).toBe(
      true,
    )
    return { db: services.db, webhookId: webhook.id }
  }

  it('lets the event loop turn while it writes the deliveries and fingerprints, and writes them all', async () => {
    const { db, webhookId } = await leased()
    // Written at once, they held every request of the process for half a second on a quiet machine.
    const { result: pages, turns } = await turnsDuring(() => commitFirstCheck(db, webhookId))
    expect(pages).toBe(1001)
    // 1,001 delivery rows in 300s and 100,100 fingerprints in 900s: over a hundred slices.
    expect(turns).toBeGreaterThanOrEqual(100)
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['position', 'type', 'record_count', 'data'])
      .where('webhook_id', '=', webhookId)
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
    const { db, webhookId } = await leased()
    await commitFirstCheck(db, webhookId)
    const { result: seen, turns } = await turnsDuring(() => storedFingerprints(db, webhookId))
    expect(seen.size).toBe(100_100)
    expect(seen.get('id-000000')).toBe('fp-id-000000')
    expect(seen.get('id-100099')).toBe('fp-id-100099')
    expect(turns).toBeGreaterThanOrEqual(20)
  })
})

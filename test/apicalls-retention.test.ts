import { afterEach, describe, expect, it, vi } from 'vitest'
import { API_CALL_COLUMNS, apiCallRow } from '../src/apicalls/api-call.js'
import { PRUNE_SLICE } from '../src/apicalls/index.js'
import { newTimeOrderedId } from '../src/crypto/ids.js'
import { bulkInserter } from '../src/store/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

type Call = { id: string; name: string; created_at: string }
const DAY = 86_400_000

describe.each(storeKinds())('the API-call log is kept within its bounds on %s', (store) => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  const start = (maxPerWorkspace: number, retentionDays = 60, pruneEveryMs = 60_000) =>
    startHarness(store, {
      apiCallLog: { maxPerWorkspace, retentionMs: retentionDays * DAY, pruneEveryMs },
    })

  /**
   * A harness whose background pruner is stopped, so the test's own `pruneAll` is the only pass: the sweep the
   * server makes at start could otherwise still be running when the rows are written and remove them first
   * (seen in CI on PostgreSQL under load: the test's pass found nothing left).
   */
  const startPrunedByHand = async (maxPerWorkspace: number, retentionDays?: number) => {
    const harness = await start(maxPerWorkspace, retentionDays)
    await harness.services.apiCallRetention.stop()
    return harness
  }

  /** Writes `count` calls `ageMs` old, four to a millisecond, so the bound falls between calls made at once. */
  const write = async (harness: Harness, workspaceId: string, count: number, ageMs: number, name: string) => {
    const insert = bulkInserter(harness.services.db, 'api_calls', API_CALL_COLUMNS)
    const from = Date.now() - ageMs
    await insert(
      Array.from({ length: count }, (_, i) => {
        const at = from + Math.floor(i / 4)
        return apiCallRow(newTimeOrderedId('ac', at), new Date(at).toISOString(), {
          workspace_id: workspaceId,
          integration_type: 'posthog',
          type: 'inbound',
          name: `${name}${i}`,
          method: 'GET',
          path: 'GET /analytics/{connection_id}/event',
          status: 200,
          is_billable: true,
        })
      }),
    )
  }

  const everyCall = async (harness: Harness, key?: string) => {
    const calls: Call[] = []
    for (let offset = 0; ; offset += 1000) {
      const res = await harness.api<Call[]>('GET', '/unified/apicall', {
        query: { limit: 1000, offset },
        ...(key ? { key } : {}),
      })
      expect(res.status).toBe(200)
      calls.push(...res.body)
      if (res.body.length < 1000) return calls
    }
  }

  it("keeps a workspace's newest calls up to the bound, a slice at a time, and leaves other workspaces alone", async () => {
    h = await startPrunedByHand(20)
    const other = await h.otherWorkspace()
    const count = 2 * PRUNE_SLICE + 37
    await write(h, h.workspaceId, count, 60_000, 'call')
    await write(h, other.workspaceId, 15, 60_000, 'other')
    const before = await everyCall(h)
    const otherBefore = await everyCall(h, other.apiKey)
    expect(before).toHaveLength(count)

    expect(await h.services.apiCallRetention.pruneAll()).toBe(count - 20)

    // Newest first: the first 20 of the listing before, exactly.
    expect(await everyCall(h)).toEqual(before.slice(0, 20))
    expect(await everyCall(h, other.apiKey)).toEqual(otherBefore)
    // Nothing more to remove.
    expect(await h.services.apiCallRetention.pruneAll()).toBe(0)
  })

  it('removes calls older than the retention period, even under the count bound', async () => {
    h = await startPrunedByHand(1000, 30)
    const other = await h.otherWorkspace()
    await write(h, h.workspaceId, 7, 31 * DAY, 'old')
    await write(h, h.workspaceId, 5, 29 * DAY, 'recent')
    await write(h, other.workspaceId, 3, 31 * DAY, 'other')

    await h.services.apiCallRetention.pruneAll()

    const left = await everyCall(h)
    expect(left.map((c) => c.name).sort()).toEqual(['recent0', 'recent1', 'recent2', 'recent3', 'recent4'])
    expect(await everyCall(h, other.apiKey)).toEqual([])
  })

  it('prunes in the background the workspaces that made calls', async () => {
    h = await start(3, 60, 50)
    for (let i = 0; i < 8; i++) {
      // An unknown connection: refused, and recorded as an inbound call like any other.
      const res = await h.api('GET', `/analytics/cn_na_unknown${i}/event`)
      expect(res.status).toBeGreaterThanOrEqual(400)
    }
    const recorded = await everyCall(h)
    expect(recorded).toHaveLength(8)
    await vi.waitFor(async () => expect(await everyCall(h!)).toEqual(recorded.slice(0, 3)), {
      timeout: 10_000,
      interval: 50,
    })
  })
})

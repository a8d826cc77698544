import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_CALL_COLUMNS, apiCallRow, apiCallView } from '../src/apicalls/api-call.js'
import { newTimeOrderedId } from '../src/crypto/ids.js'
import { bulkInserter } from '../src/store/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

type View = ReturnType<typeof apiCallView>
const SORTS = ['created_at', 'name', 'status'] as const
// First letters differ, so every store's collation orders them alike.
const NAMES = ['listEvents', 'getEvent', 'createContact']
const STATUSES = [200, 404, 502, 201]

describe.each(storeKinds())('pages of the API-call log on %s', (store) => {
  let h: Harness
  let calls: View[]

  beforeAll(async () => {
    // Calls of a fixed day in the past: the retention prune (every 10 s in the background) must not take
    // them while the pages are read, so it keeps them here for a century.
    h = await startHarness(store, {
      apiCallLog: { maxPerWorkspace: 100_000, retentionMs: 36_500 * 86_400_000, pruneEveryMs: 10_000 },
    })
    const other = await h.otherWorkspace()
    const insert = bulkInserter(h.services.db, 'api_calls', API_CALL_COLUMNS)
    const t0 = Date.parse('2026-03-01T00:00:00.000Z')
    const rows = Array.from({ length: 240 }, (_, i) => {
      // Five calls a millisecond with random id suffixes: ties in every sort column, and ids in an order
      // unrelated to the order the rows were written.
      const at = t0 + Math.floor(i / 5)
      const status = STATUSES[i % STATUSES.length]!
      return apiCallRow(newTimeOrderedId('ac', at), new Date(at).toISOString(), {
        workspace_id: i % 7 === 0 ? other.workspaceId : h.workspaceId,
        ...(i % 3 === 0 ? { connection_id: 'cn_na_one' } : {}),
        integration_type: 'posthog',
        type: i % 2 === 0 ? 'inbound' : 'mcp',
        name: NAMES[i % NAMES.length]!,
        method: 'GET',
        path: 'GET /analytics/{connection_id}/event',
        status,
        ...(status >= 400 ? { error: `failed ${i}` } : {}),
        user_agent: `agent/${i}`,
        is_billable: status < 400,
        unified_response_time: i,
      })
    })
    // Written out of order too.
    await insert(rows.filter((_, i) => i % 2 === 1))
    await insert(rows.filter((_, i) => i % 2 === 0))
    calls = rows.filter((r) => r.workspace_id === h.workspaceId).map(apiCallView)
  })
  afterAll(async () => {
    await h?.close()
  })

  /** The order the log is documented to list in: the sort column, then the id, both in the asked order. */
  const expected = (sort: (typeof SORTS)[number], order: 'asc' | 'desc', keep: (c: View) => boolean) => {
    const sign = order === 'asc' ? 1 : -1
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
    return calls.filter(keep).sort((a, b) => sign * (cmp(a[sort], b[sort]) || cmp(a.id, b.id)))
  }

  const filters: [Record<string, string>, (c: View) => boolean][] = [
    [{}, () => true],
    [{ error: 'true' }, (c) => c.error !== undefined],
    [{ type: 'mcp', connection_id: 'cn_na_one' }, (c) => c.type === 'mcp' && c.connection_id === 'cn_na_one'],
    [
      { updated_gte: '2026-03-01T00:00:00.020Z', is_billable: 'true' },
      (c) => c.created_at >= '2026-03-01T00:00:00.020Z' && c.is_billable,
    ],
  ]

  it('answers every page of every sort, order and filter in that order, ties broken by id', async () => {
    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        for (const [query, keep] of filters) {
          const all = expected(sort, order, keep)
          expect(all.length).toBeGreaterThan(10)
          for (const [limit, offset] of [
            [7, 0],
            [7, 7],
            [13, 40],
            [1000, 0],
            [5, all.length - 3],
            [5, all.length],
          ] as const) {
            const res = await h.api<View[]>('GET', '/unified/apicall', {
              query: { ...query, sort, order, limit, offset },
            })
            expect(res.status).toBe(200)
            expect(res.body, `${sort} ${order} ${JSON.stringify(query)} ${limit}@${offset}`).toEqual(
              all.slice(offset, offset + limit),
            )
          }
        }
      }
    }
  })
})

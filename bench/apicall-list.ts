/**
 * How long one page of the API-call log (`GET /unified/apicall`) holds the event loop on the embedded SQLite
 * store, where better-sqlite3 runs each query synchronously: a workspace of ROWS calls (default 100,000) of
 * the widest a row gets (a 512-character error and user agent, about 1.2 KB), beside a second workspace of
 * a tenth as many, read through `ApiCallLog.list` with deep offsets and every sort. Also the time of one
 * retention prune of that workspace down to half its rows, and the longest the loop waited during it.
 * `npx tsx bench/apicall-list.ts` (ROWS=... to change the size).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { API_CALL_COLUMNS, apiCallRow } from '../src/apicalls/api-call.js'
import { type ApiCallFilter, ApiCallLog, ApiCallRetention } from '../src/apicalls/index.js'
import { newTimeOrderedId } from '../src/crypto/ids.js'
import { bulkInserter, migrateToLatest, openDatabase } from '../src/store/index.js'

const ROWS = Number(process.env.ROWS ?? 100_000)
const T0 = Date.parse('2026-01-01T00:00:00.000Z')
const NAMES = [
  'listAnalyticsEvents',
  'getAnalyticsEvent',
  'listCrmContacts',
  'createCrmContact',
  'listPassthroughs',
]
const STATUSES = [200, 200, 200, 201, 400, 404, 429, 502]

async function main(): Promise<void> {
  const db = openDatabase({
    sqliteFile: join(mkdtempSync(join(tmpdir(), 'unigate-bench-apicalls-')), 'unigate.db'),
  })
  await migrateToLatest(db)
  for (const id of ['w', 'other']) {
    await db
      .insertInto('workspaces')
      .values({
        id,
        name: id,
        secret_sealed: 's',
        slow_fields_opt_in: 0,
        allowed_redirect_origins: '[]',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute()
  }
  const insert = bulkInserter(db, 'api_calls', API_CALL_COLUMNS)
  const fill = async (workspace: string, count: number) => {
    for (let from = 0; from < count; from += 1000) {
      const rows = []
      for (let i = from; i < Math.min(count, from + 1000); i++) {
        // Several calls in each millisecond, as at 2,000 calls a second: sorts meet ties in every column.
        const at = T0 + Math.floor(i / 4)
        const status = STATUSES[i % STATUSES.length]!
        rows.push(
          apiCallRow(newTimeOrderedId('ac', at), new Date(at).toISOString(), {
            workspace_id: workspace,
            connection_id: `cn_na_${(i % 50).toString().padStart(20, '0')}`,
            integration_type: 'posthog',
            external_xref: `customer-${i % 50}`,
            type: i % 3 === 0 ? 'mcp' : 'inbound',
            name: NAMES[i % NAMES.length]!,
            method: 'GET',
            path: 'GET /analytics/{connection_id}/event',
            status,
            ...(status >= 400 ? { error: 'e'.repeat(512) } : {}),
            size: 4000 + i,
            ip_address: '203.0.113.7',
            user_agent: 'u'.repeat(512),
            is_billable: status < 400,
            unified_response_time: 40 + (i % 100),
          }),
        )
      }
      await insert(rows)
    }
  }
  await fill('w', ROWS)
  await fill('other', Math.floor(ROWS / 10))
  const log = new ApiCallLog(db)

  const page = (q: Partial<ApiCallFilter>): ApiCallFilter => ({
    workspaceId: 'w',
    sort: 'created_at',
    order: 'desc',
    limit: 100,
    offset: 0,
    ...q,
  })
  const cases: [string, ApiCallFilter][] = [
    ['default (created_at desc), limit 100', page({})],
    ['default, limit 1000, offset 99000', page({ limit: 1000, offset: 99_000 })],
    ['sort=status, limit 1000, offset 100000', page({ sort: 'status', limit: 1000, offset: 100_000 })],
    ['sort=status, limit 100', page({ sort: 'status' })],
    [
      'sort=name&order=asc, limit 1000, offset 50000',
      page({ sort: 'name', order: 'asc', limit: 1000, offset: 50_000 }),
    ],
    [
      'sort=name&order=asc, limit 1000, offset 100000',
      page({ sort: 'name', order: 'asc', limit: 1000, offset: 100_000 }),
    ],
    [
      'error=true&sort=status, limit 1000, offset 30000',
      page({ error: true, sort: 'status', limit: 1000, offset: 30_000 }),
    ],
    ['type=inbound, limit 1000, offset 60000', page({ type: 'inbound', limit: 1000, offset: 60_000 })],
  ]
  console.log(`${ROWS} rows in one workspace, ${Math.floor(ROWS / 10)} in another; best of 3, ms`)
  for (const [name, filter] of cases) {
    let best = Infinity
    let rows = 0
    for (let round = 0; round < 3; round++) {
      const started = performance.now()
      rows = (await log.list(filter)).length
      best = Math.min(best, performance.now() - started)
    }
    console.log(`| ${name} | ${rows} rows | ${best.toFixed(1)} |`)
  }

  const retention = new ApiCallRetention(
    db,
    log,
    { maxPerWorkspace: Math.floor(ROWS / 2), retentionMs: 1e12, pruneEveryMs: 60_000 },
    (err) => console.error(err),
  )
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const started = performance.now()
  const removed = await retention.pruneAll(T0 + ROWS)
  const took = performance.now() - started
  delay.disable()
  console.log(
    `prune to ${Math.floor(ROWS / 2)} a workspace: ${removed} rows removed in ${took.toFixed(0)} ms, longest event-loop delay ${(delay.max / 1e6).toFixed(1)} ms`,
  )
  await db.destroy()
}

await main()

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { API_CALL_COLUMNS, apiCallRow } from '../src/apicalls/api-call.js'
import { ApiCallLog, type NewApiCall } from '../src/apicalls/index.js'
import { createServices } from '../src/services.js'
import {
  type Db,
  migrateToLatest,
  openDatabase,
  type RowAppender,
  sqliteHandleOf,
  threadedInserter,
} from '../src/store/index.js'
import { testConfig } from './support/config.js'
import { insertWorkspaceRow } from './support/stores.js'

const call = (workspaceId = 'ws_1'): NewApiCall => ({
  workspace_id: workspaceId,
  integration_type: 'posthog',
  type: 'inbound',
  name: 'listAnalyticsEvents',
  method: 'GET',
  path: 'GET /analytics/{connection_id}/event',
  status: 200,
  is_billable: true,
  user_agent: 'o\'brien "ua"',
})
const row = (id: string, workspaceId = 'ws_1') =>
  apiCallRow(id, '2026-01-01T00:00:00.000Z', call(workspaceId))

describe('the embedded store inserts the API-call log on a thread of its own', () => {
  let dir: string
  let db: Db
  let appender: RowAppender<ReturnType<typeof apiCallRow>> | undefined
  const lost: Error[] = []

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'unigate-thread-'))
    db = openDatabase({ sqliteFile: join(dir, 'unigate.db') })
    await migrateToLatest(db)
    await insertWorkspaceRow(db, 'ws_1', 'thread')
    lost.length = 0
  })

  afterEach(async () => {
    await appender?.close()
    appender = undefined
    await db.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  const threaded = () => {
    appender = threadedInserter(db, 'api_calls', API_CALL_COLUMNS, (err) => lost.push(err))
    return appender
  }
  const stored = () => db.selectFrom('api_calls').selectAll().orderBy('id').execute()

  it('writes every row with every column as given', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => row(`ac_${String(i).padStart(3, '0')}`))
    await threaded().append(rows)
    expect(await stored()).toEqual(rows)
    expect(lost).toEqual([])
  })

  it("writes on a connection of its own: the server's open transaction neither holds nor takes its rows", async () => {
    const sqlite = sqliteHandleOf(db)!
    const appending = threaded()
    // Started first, so the next batch's thread is running when the server takes the write lock.
    await appending.append([row('ac_0')])
    sqlite.exec('BEGIN IMMEDIATE')
    let settled = false
    const second = appending.append([row('ac_1')]).then(() => {
      settled = true
    })
    await new Promise((r) => setTimeout(r, 150))
    // The thread waits for SQLite's one write lock; the server's event loop does not (this timer ran).
    expect(settled).toBe(false)
    sqlite.exec('ROLLBACK')
    await second
    // Inserted in the server's connection, the row would have been rolled back with its transaction.
    expect((await stored()).map((r) => r.id)).toEqual(['ac_0', 'ac_1'])
  })

  it("lets the server's read-then-write transactions commit while the thread writes", async () => {
    const appending = threaded()
    await appending.append([row('ac_0')])
    let thread: Promise<void> | undefined
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('workspaces').select('name').where('id', '=', 'ws_1').executeTakeFirstOrThrow()
      // A batch the thread commits between this transaction's read and its write: had the transaction begun
      // with a read snapshot only, its write would find the snapshot stale and fail (SQLITE_BUSY, which no
      // busy_timeout waits out). It holds the write lock from its start instead, and the batch waits.
      thread = appending.append([row('ac_1')])
      await new Promise((r) => setTimeout(r, 100))
      await trx.updateTable('workspaces').set({ name: 'renamed' }).where('id', '=', 'ws_1').execute()
    })
    await thread
    expect((await stored()).map((r) => r.id)).toEqual(['ac_0', 'ac_1'])
    expect(await db.selectFrom('workspaces').select('name').executeTakeFirst()).toEqual({ name: 'renamed' })
  })

  it("writes a batch in the server's thread when a transaction of the server's outlasts the thread's wait", async () => {
    const appending = threaded()
    await appending.append([row('ac_0')])
    let batch: Promise<void> | undefined
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('workspaces').set({ name: 'renamed' }).where('id', '=', 'ws_1').execute()
      batch = appending.append([row('ac_1')])
      // Past the thread's busy_timeout (5 s): it gives the batch back rather than dropping it.
      await new Promise((r) => setTimeout(r, 5_500))
    })
    await batch
    expect((await stored()).map((r) => r.id)).toEqual(['ac_0', 'ac_1'])
    expect(lost).toEqual([])
  })

  it('reports a batch it could not write, and writes the next', async () => {
    const appending = threaded()
    await expect(appending.append([row('ac_0', 'ws_gone')])).rejects.toThrow(/FOREIGN KEY/)
    await appending.append([row('ac_1')])
    expect((await stored()).map((r) => r.id)).toEqual(['ac_1'])
    expect(lost).toEqual([])
  })

  it('writes in the server thread, once told, when the thread cannot run', async () => {
    // The thread opens the store by its file name: gone, it fails to start (it makes no new empty store), and
    // every batch goes to the server's own connection, which still has the file.
    rmSync(join(dir, 'unigate.db'))
    const appending = threaded()
    await appending.append([row('ac_0')])
    await appending.append([row('ac_1')])
    expect((await stored()).map((r) => r.id)).toEqual(['ac_0', 'ac_1'])
    expect(lost.map((e) => e.message)).toEqual([
      expect.stringMatching(/insert thread failed: unable to open database file/),
    ])
  })

  it('writes a batch again after losing the thread, passing over the rows the thread committed before it died', async () => {
    // The thread answers after its commit: one that dies in between leaves a written batch reported lost,
    // which the server's thread then writes again. Here the thread cannot start, so every batch goes inline.
    rmSync(join(dir, 'unigate.db'))
    const appending = threaded()
    await appending.append([row('ac_0')])
    await appending.append([row('ac_0'), row('ac_1')])
    expect((await stored()).map((r) => r.id)).toEqual(['ac_0', 'ac_1'])
  })

  it('through the API-call log: a read sees every call recorded before it, and close stops the thread', async () => {
    const errors: unknown[] = []
    const log = new ApiCallLog(db, { error: (obj) => errors.push(obj) })
    for (let i = 0; i < 450; i++) log.record(call())
    const page = await log.list({
      workspaceId: 'ws_1',
      sort: 'created_at',
      order: 'asc',
      limit: 500,
      offset: 0,
    })
    expect(page).toHaveLength(450)
    await log.close()
    expect(errors).toEqual([])
  })
})

describe("the server's API-call log", () => {
  it('reports a batch it could not write in the structured log, as the apicalls component', async () => {
    const lines: string[] = []
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    const services = await createServices(testConfig('sqlite', { logLevel: 'warn' }), {
      background: false,
      logStream: stream,
    })
    try {
      // No such workspace: the row's foreign key refuses the batch.
      services.apiCalls.record(call('ws_gone'))
      await services.apiCalls.flush()
    } finally {
      await services.close()
    }
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(logged).toContainEqual(
      expect.objectContaining({ component: 'apicalls', msg: 'could not record API calls', dropped: 1 }),
    )
  })
})

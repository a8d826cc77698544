import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { API_CALL_COLUMNS, apiCallRow } from '../src/apicalls/api-call.js'
import { bulkInserter, type Db, migrateToLatest, openDatabase, preparedQuery } from '../src/store/index.js'
import { dropSchema, insertWorkspaceRow, storeKinds, uniqueSchema } from './support/stores.js'

describe.each(storeKinds())('bulk inserts and prepared queries on %s', (store) => {
  let db: Db
  let schema: string | undefined

  beforeEach(async () => {
    schema = store === 'postgres' ? uniqueSchema() : undefined
    db = openDatabase({
      ...(store === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL, pgSchema: schema } : {}),
      sqliteFile: join(mkdtempSync(join(tmpdir(), 'unigate-bulk-')), 'unigate.db'),
    })
    await migrateToLatest(db, schema)
    await insertWorkspaceRow(db, 'ws_1', 'bulk')
  })

  afterEach(async () => {
    await db.destroy()
    if (schema) await dropSchema(schema)
  })

  const rowsOf = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) =>
      apiCallRow(
        `ac_${String(from + i).padStart(5, '0')}`,
        `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
        {
          workspace_id: 'ws_1',
          integration_type: 'posthog',
          type: 'inbound',
          name: 'listAnalyticsEvents',
          method: 'GET',
          path: 'GET /analytics/{connection_id}/event',
          status: i % 2 === 0 ? 200 : 502,
          is_billable: i % 2 === 0,
          // Every other row leaves the optional columns out: they must arrive as NULL, not as text.
          ...(i % 2 === 0
            ? {
                connection_id: `cn_${i}`,
                size: i * 10,
                unified_response_time: i,
                user_agent: 'o\'brien "ua"',
              }
            : { error: 'the provider answered 502' }),
        },
      ),
    )

  it('writes every row with every column as given, in batches of any size', async () => {
    const insert = bulkInserter(db, 'api_calls', API_CALL_COLUMNS)
    const rows = [...rowsOf(1), ...rowsOf(450, 1), ...rowsOf(3, 451)]
    await insert(rows.slice(0, 1))
    await insert(rows.slice(1, 451))
    await insert([])
    await insert(rows.slice(451))
    const stored = await db.selectFrom('api_calls').selectAll().orderBy('id').execute()
    expect(stored.map((r) => ({ ...r, size: r.size === null ? null : Number(r.size) }))).toEqual(
      rows.map((r) => ({
        ...r,
        unified_response_time: r.unified_response_time === null ? null : Number(r.unified_response_time),
      })),
    )
  })

  it('waits for an open transaction instead of joining it: a rollback keeps the inserted rows', async () => {
    const insert = bulkInserter(db, 'api_calls', API_CALL_COLUMNS)
    let inserted: Promise<void> | undefined
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('workspaces').set({ name: 'renamed' }).where('id', '=', 'ws_1').execute()
        inserted = insert(rowsOf(5))
        await new Promise((r) => setTimeout(r, 20))
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    await inserted
    const workspace = await db.selectFrom('workspaces').select('name').executeTakeFirstOrThrow()
    expect(workspace.name).toBe('bulk')
    expect(await db.selectFrom('api_calls').select('id').execute()).toHaveLength(5)
  })

  it("runs a prepared query with each call's arguments and keeps the constants written in it", async () => {
    await bulkInserter(db, 'api_calls', API_CALL_COLUMNS)(rowsOf(6))
    const byStatus = preparedQuery<{ status: string; workspace: string }, { id: string; status: string }>(
      db,
      (arg) =>
        db
          .selectFrom('api_calls')
          .select(['id', 'status'])
          .where('workspace_id', '=', arg('workspace'))
          .where('status', '=', arg('status'))
          .where('type', '=', 'inbound')
          .orderBy('id')
          .limit(2),
    )
    expect(await byStatus.all({ status: '200', workspace: 'ws_1' })).toEqual([
      { id: 'ac_00000', status: '200' },
      { id: 'ac_00002', status: '200' },
    ])
    expect(await byStatus.first({ status: '502', workspace: 'ws_1' })).toEqual({
      id: 'ac_00001',
      status: '502',
    })
    expect(await byStatus.first({ status: '200', workspace: 'ws_other' })).toBeUndefined()

    const rename = preparedQuery<{ id: string; name: string }, unknown>(db, (arg) =>
      db
        .updateTable('api_calls')
        .set({ name: arg('name'), error: null })
        .where('id', '=', arg('id')),
    )
    expect(await rename.run({ id: 'ac_00001', name: 'renamed' })).toBe(1)
    expect(await rename.run({ id: 'ac_00003', name: 'again' })).toBe(1)
    expect(await rename.run({ id: 'ac_missing', name: 'nobody' })).toBe(0)
    const rows = await db.selectFrom('api_calls').select(['id', 'name', 'error']).orderBy('id').execute()
    expect(rows.filter((r) => r.error === null && r.name !== 'listAnalyticsEvents')).toEqual([
      { id: 'ac_00001', name: 'renamed', error: null },
      { id: 'ac_00003', name: 'again', error: null },
    ])
  })

  it('runs a prepared write after an open transaction, never inside it', async () => {
    await bulkInserter(db, 'api_calls', API_CALL_COLUMNS)(rowsOf(1))
    const rename = preparedQuery<{ name: string }, unknown>(db, (arg) =>
      db
        .updateTable('api_calls')
        .set({ name: arg('name') })
        .where('id', '=', 'ac_00000'),
    )
    let renamed: Promise<number> | undefined
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('workspaces').set({ name: 'renamed' }).where('id', '=', 'ws_1').execute()
        renamed = rename.run({ name: 'kept' })
        await new Promise((r) => setTimeout(r, 20))
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    await renamed
    expect((await db.selectFrom('api_calls').select('name').executeTakeFirstOrThrow()).name).toBe('kept')
  })
})

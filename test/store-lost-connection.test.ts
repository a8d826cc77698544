import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../src/store/database.js'
import { storeKinds } from './support/stores.js'

/**
 * PostgreSQL may close a pooled connection that sits idle (a restart, an administrator, a proxy's idle
 * timeout). pg-pool re-emits that error on the pool, where an unheard 'error' event would end the process:
 * the store must report it and go on with a new connection.
 */
describe.skipIf(!storeKinds().includes('postgres'))(
  'a PostgreSQL store whose idle connection is closed',
  () => {
    it('reports it without the client or its settings, and the next query opens another connection', async () => {
      const lost: unknown[] = []
      const db = openDatabase({
        databaseUrl: process.env.TEST_DATABASE_URL,
        sqliteFile: ':memory:',
        onLostConnection: (l) => lost.push(l),
      })
      try {
        const first = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)
        const pid = first.rows[0]?.pid
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await admin.connect()
        try {
          await admin.query('select pg_terminate_backend($1)', [pid])
        } finally {
          await admin.end()
        }
        const deadline = Date.now() + 10_000
        while (lost.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        expect(lost).toEqual([{ code: '57P01', message: expect.stringContaining('administrator command') }])
        const next = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)
        expect(next.rows[0]?.pid).not.toBe(pid)
      } finally {
        await db.destroy()
      }
    })
  },
)

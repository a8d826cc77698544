/**
 * What the shared list cursors cost on the request path, per store: a page read in order on one process (a
 * memory hit, then the next page's cursor written before the answer), a page on a process that never saw
 * the one before (one store read), and a memory hit alone. `npx tsx bench/list-cursors.ts`; PostgreSQL at
 * BENCH_DATABASE_URL (a schema of its own, dropped after), skipped when it is set empty.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CursorBank, CursorMemory } from '../src/integrations/cursors.js'
import { migrateToLatest, openDatabase } from '../src/store/index.js'
import { ListCursorStore } from '../src/store/list-cursors.js'
import { DATABASE_URL } from './fresh-database.js'

const PAGES = 2_000
const T = '2026-01-01T00:00:00.000Z'

async function measure(name: string, databaseUrl?: string): Promise<void> {
  const pgSchema = databaseUrl ? `bench_cursors_${randomBytes(4).toString('hex')}` : undefined
  const db = openDatabase({
    ...(databaseUrl ? { databaseUrl, pgSchema } : {}),
    sqliteFile: join(mkdtempSync(join(tmpdir(), 'unigate-bench-cursors-')), 'unigate.db'),
  })
  try {
    await migrateToLatest(db, pgSchema)
    await db
      .insertInto('workspaces')
      .values({
        id: 'w',
        name: 'bench',
        secret_sealed: 's',
        slow_fields_opt_in: 0,
        allowed_redirect_origins: '[]',
        created_at: T,
        updated_at: T,
      })
      .execute()
    await db
      .insertInto('connections')
      .values({
        id: 'c',
        workspace_id: 'w',
        integration_type: 'hubspot',
        categories: '["crm"]',
        permissions: '[]',
        external_xref: null,
        environment: 'Production',
        auth_sealed: 's',
        settings: '{}',
        is_paused: 0,
        created_at: T,
        updated_at: T,
        last_healthy_at: null,
        last_unhealthy_at: null,
        last_unhealthy_code: null,
      })
      .execute()
    const store = new ListCursorStore(db)
    const one = new CursorBank(new CursorMemory(), store)
    const other = new CursorBank(new CursorMemory(), store)
    const perPage = async (run: (i: number) => Promise<void>) => {
      const start = performance.now()
      for (let i = 1; i <= PAGES; i++) await run(i)
      return `${Math.round(((performance.now() - start) / PAGES) * 1000)} µs`
    }
    const inOrder = await perPage(async (i) => {
      const cursors = one.forConnection('c')
      await cursors.walkStart('c:q', i * 100)
      cursors.set('c:q', (i + 1) * 100, `token-${i}`)
      await cursors.flush()
    })
    const elsewhere = await perPage(async (i) => {
      await other.forConnection('c').walkStart('c:q', i * 100 + 50)
    })
    const hit = await perPage(async (i) => {
      await one.forConnection('c').walkStart('c:q', i * 100)
    })
    console.log(
      `${name}: page read in order ${inOrder} (memory hit + one write), on another process ${elsewhere} ` +
        `(one store read), memory hit alone ${hit}`,
    )
  } finally {
    if (pgSchema) await db.schema.dropSchema(pgSchema).cascade().execute()
    await db.destroy()
  }
}

await measure('SQLite')
if (DATABASE_URL) await measure('PostgreSQL', DATABASE_URL)

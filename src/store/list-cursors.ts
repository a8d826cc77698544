import { sql } from 'kysely'
import type { CursorStore, StoredCursor } from '../integrations/cursors.js'
import { type Db, sqliteHandleOf } from './database.js'

/** Rows per statement: 5 parameters each, far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_STATEMENT = 500

/** Expired rows deleted per statement of a sweep. */
const SWEEP_BATCH = 1_000

/** The `list_cursors` table: provider cursors every process on this store shares. */
export class ListCursorStore implements CursorStore {
  constructor(private readonly db: Db) {}

  async find(scopeHash: string, offset: number, now: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('list_cursors')
      .select('cursor')
      .where('scope_hash', '=', scopeHash)
      .where('position', '=', offset)
      .where('expires_at', '>', now)
      .executeTakeFirst()
    return row?.cursor
  }

  async floor(
    scopeHash: string,
    offset: number,
    now: string,
  ): Promise<{ offset: number; cursor: string } | undefined> {
    // The primary key (scope_hash, position) answers this with one index descent.
    const row = await this.db
      .selectFrom('list_cursors')
      .select(['position', 'cursor'])
      .where('scope_hash', '=', scopeHash)
      .where('position', '<=', offset)
      .where('position', '>', 0)
      .where('expires_at', '>', now)
      .orderBy('position', 'desc')
      .limit(1)
      .executeTakeFirst()
    return row && { offset: Number(row.position), cursor: row.cursor }
  }

  /**
   * Stores the cursors. A connection deleted while one of its lists was being answered takes its cursors
   * with it (the foreign key refuses them): nothing is left to page, so that is not an error of the list.
   */
  async write(cursors: readonly StoredCursor[]): Promise<void> {
    try {
      await this.upsert(cursors)
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err
    }
  }

  private async upsert(cursors: readonly StoredCursor[]): Promise<void> {
    if (cursors.length === 0) return
    // SQLite (WAL mode) commits each statement cheaply: no transaction around them.
    if (sqliteHandleOf(this.db)) return this.insert(this.db, cursors)
    await this.db.transaction().execute(async (trx) => {
      // The commit does not wait for the WAL to reach disk (measured: most of the time of a write on a
      // busy machine). The rows are visible to every process at commit all the same; a database crash
      // may lose the last moment's cursors, and a lost cursor only costs a walk (Matomo: a new listing
      // as of now).
      await sql`set local synchronous_commit = off`.execute(trx)
      await this.insert(trx, cursors)
    })
  }

  private async insert(db: Db, cursors: readonly StoredCursor[]): Promise<void> {
    for (let from = 0; from < cursors.length; from += ROWS_PER_STATEMENT) {
      await db
        .insertInto('list_cursors')
        .values(
          cursors.slice(from, from + ROWS_PER_STATEMENT).map((c) => ({
            scope_hash: c.scopeHash,
            position: c.offset,
            cursor: c.cursor,
            connection_id: c.connectionId,
            expires_at: c.expiresAt,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['scope_hash', 'position']).doUpdateSet((eb) => ({
            cursor: eb.ref('excluded.cursor'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        )
        .execute()
    }
  }

  /**
   * Deletes the expired cursors SWEEP_BATCH rows at a time (found by the expiry index), so no one statement
   * holds SQLite's write lock, or PostgreSQL's row locks, for the whole of a busy hour's expired pages.
   */
  async sweep(now: string): Promise<void> {
    for (;;) {
      const result = await this.db
        .deleteFrom('list_cursors')
        .where((eb) =>
          eb(
            eb.refTuple('scope_hash', 'position'),
            'in',
            eb
              .selectFrom('list_cursors')
              .select(['scope_hash', 'position'])
              .where('expires_at', '<=', now)
              .limit(SWEEP_BATCH)
              .$asTuple('scope_hash', 'position'),
          ),
        )
        .executeTakeFirst()
      if (Number(result.numDeletedRows) < SWEEP_BATCH) return
    }
  }
}

/** SQLite's and PostgreSQL's error for a row whose foreign key names no row (here: a deleted connection). */
function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503'
}

import { sql } from 'kysely'
import type { CursorStore, StoredCursor } from '../integrations/cursors.js'
import { type Db, sqliteHandleOf } from './database.js'
import { type PreparedQuery, preparedQuery } from './prepared.js'

/** Rows per statement: 5 parameters each, far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_STATEMENT = 500

/** Expired rows deleted per statement of a sweep. */
const SWEEP_BATCH = 1_000

/** The `list_cursors` table: provider cursors every process on this store shares. */
export class ListCursorStore implements CursorStore {
  /**
   * SQLite's upsert of one cursor, compiled and prepared once: each page of a cursor-paged list writes its
   * next cursor before it is answered, and building the statement with Kysely per request cost more than
   * SQLite's write itself (issue 12, CRM list profile).
   */
  private readonly sqliteUpsert: PreparedQuery<CursorRow, unknown> | undefined

  constructor(private readonly db: Db) {
    this.sqliteUpsert = sqliteHandleOf(db)
      ? preparedQuery<CursorRow, unknown>(db, (arg) =>
          upsertOf(db, [
            {
              scope_hash: arg('scope_hash'),
              position: arg('position'),
              cursor: arg('cursor'),
              connection_id: arg('connection_id'),
              expires_at: arg('expires_at'),
            },
          ]),
        )
      : undefined
  }

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
    // SQLite: one prepared statement per cursor, all in one transaction.
    if (this.sqliteUpsert) {
      await this.sqliteUpsert.runAll(cursors.map(rowOf))
      return
    }
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
      await upsertOf(db, cursors.slice(from, from + ROWS_PER_STATEMENT).map(rowOf)).execute()
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

/** A `list_cursors` row as written. */
interface CursorRow extends Record<string, unknown> {
  readonly scope_hash: string
  readonly position: number
  readonly cursor: string
  readonly connection_id: string
  readonly expires_at: string
}

const rowOf = (c: StoredCursor): CursorRow => ({
  scope_hash: c.scopeHash,
  position: c.offset,
  cursor: c.cursor,
  connection_id: c.connectionId,
  expires_at: c.expiresAt,
})

/** Inserts the rows, a row already at the same scope and position taking the new cursor and expiry. */
function upsertOf(db: Db, rows: readonly CursorRow[]) {
  return db
    .insertInto('list_cursors')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['scope_hash', 'position']).doUpdateSet((eb) => ({
        cursor: eb.ref('excluded.cursor'),
        expires_at: eb.ref('excluded.expires_at'),
      })),
    )
}

/** SQLite's and PostgreSQL's error for a row whose foreign key names no row (here: a deleted connection). */
function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503'
}

import type SQLite from 'better-sqlite3'
import { CompiledQuery } from 'kysely'
import { type Db, sqliteHandleOf } from './database.js'
import type { Database } from './schema.js'

export type Table = keyof Database & string
export type Row<T extends Table> = Database[T]

/** PostgreSQL takes at most 65535 parameters a statement; stay well below. */
const MAX_PARAMETERS = 30_000

/**
 * Appends rows to one table with statements built once, not once per batch: on SQLite one prepared
 * single-row statement run for every row inside one transaction (on the store's one connection, taken
 * through Kysely so no other transaction is open meanwhile); on PostgreSQL one multi-row statement per
 * batch size, its text compiled by Kysely once. Kysely's per-call compilation and SQLite's per-call
 * prepare cost more than the insert itself for the API-call log's batches.
 */
export function bulkInserter<T extends Table>(
  db: Db,
  table: T,
  columns: readonly (keyof Row<T> & string)[],
  options: InsertOptions = {},
): (rows: readonly Row<T>[]) => Promise<void> {
  const valuesOf = (row: Row<T>, out: unknown[]) => rowValues(row, columns, out)
  const statementFor = (rowCount: number) => insertStatement(db, table, columns, rowCount, options)

  const sqlite = sqliteHandleOf(db)
  if (sqlite) {
    let insertAll: ((rows: readonly Row<T>[]) => void) | undefined
    return async (rows) => {
      if (rows.length === 0) return
      await db.connection().execute(async () => {
        // Prepared on first use: the table exists once migrations ran, which is after the store opened.
        insertAll ??= sqliteInsertAll(sqlite, statementFor(1), valuesOf)
        insertAll(rows)
      })
    }
  }

  const statements = new Map<number, string>()
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length))
  return async (rows) => {
    for (let from = 0; from < rows.length; from += perStatement) {
      const chunk = rows.slice(from, from + perStatement)
      let text = statements.get(chunk.length)
      if (text === undefined) {
        text = statementFor(chunk.length)
        statements.set(chunk.length, text)
      }
      const parameters: unknown[] = []
      for (const row of chunk) valuesOf(row, parameters)
      await db.executeQuery(CompiledQuery.raw(text, parameters))
    }
  }
}

/** Appends `row`'s values to `out` in the order of `columns`, an absent value as null. */
export function rowValues<T extends Table>(
  row: Row<T>,
  columns: readonly (keyof Row<T> & string)[],
  out: unknown[],
): unknown[] {
  for (const column of columns) out.push(row[column] ?? null)
  return out
}

export interface InsertOptions {
  /**
   * Rows whose key is already stored are passed over (`on conflict do nothing`): for a batch that may have
   * been written already, by a writer that could not say so (thread-inserter.ts).
   */
  readonly skipStored?: boolean
}

/** An INSERT of `rowCount` rows into `table`: Kysely writes it (quoting, placeholders) for the dialect. */
export function insertStatement<T extends Table>(
  db: Db,
  table: T,
  columns: readonly (keyof Row<T> & string)[],
  rowCount: number,
  options: InsertOptions = {},
): string {
  const insert = db
    .insertInto(table)
    .values(
      Array.from({ length: rowCount }, () => Object.fromEntries(columns.map((c) => [c, null]))) as never,
    )
  return (options.skipStored ? insert.onConflict((oc) => oc.doNothing()) : insert).compile().sql
}

function sqliteInsertAll<R>(
  sqlite: SQLite.Database,
  text: string,
  valuesOf: (row: R, out: unknown[]) => unknown[],
): (rows: readonly R[]) => void {
  const insert = sqlite.prepare(text)
  return sqlite.transaction((rows: readonly R[]) => {
    for (const row of rows) insert.run(valuesOf(row, []))
  })
}

import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { CompiledQuery, type Driver, Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely'
import type pg from 'pg'
import { pgModule } from './lazy-modules.js'
import { migrationProvider } from './migrations/index.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

/** The embedded store's own handle behind each SQLite `Db`, for the few writes that prepare statements once. */
const sqliteHandles = new WeakMap<Db, SQLite.Database>()
/** The pool behind each PostgreSQL `Db`, for the few hot statements run as named prepared statements. */
const pgPools = new WeakMap<Db, pg.Pool>()

/** The better-sqlite3 handle of an embedded store; undefined for PostgreSQL. Use only inside `db.connection()`. */
export function sqliteHandleOf(db: Db): SQLite.Database | undefined {
  return sqliteHandles.get(db)
}

/** The pg pool of a PostgreSQL store; undefined for SQLite. */
export function pgPoolOf(db: Db): pg.Pool | undefined {
  return pgPools.get(db)
}

export interface DatabaseOptions {
  /** A postgres:// URL, or undefined for the embedded SQLite file. */
  readonly databaseUrl?: string
  readonly sqliteFile: string
  /** PostgreSQL schema to use (tests isolate themselves in their own). */
  readonly pgSchema?: string
  /**
   * Told of an idle pooled connection PostgreSQL closed (a restart, an administrator, a proxy's idle
   * timeout): given the error's code and message only, since pg attaches the client (and its connection
   * settings) to the error.
   */
  readonly onLostConnection?: (lost: { readonly code?: string; readonly message: string }) => void
}

export function openDatabase(options: DatabaseOptions): Db {
  if (options.databaseUrl) {
    const pool = new (pgModule().Pool)({
      connectionString: options.databaseUrl,
      max: 10,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    })
    // pg-pool re-emits an idle client's error on the pool, and an 'error' event nobody listens to ends
    // the process: the pool drops that client and the next query opens another, so it is only reported.
    pool.on('error', (err: Error & { code?: string }) =>
      options.onLostConnection?.({ ...(err.code ? { code: err.code } : {}), message: err.message }),
    )
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    pgPools.set(db, pool)
    return db
  }
  if (options.sqliteFile !== ':memory:')
    mkdirSync(dirname(options.sqliteFile), { recursive: true, mode: 0o700 })
  const sqlite = new SQLite(options.sqliteFile)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<Database>({ dialect: new WriteLockingSqliteDialect({ database: sqlite }) })
  sqliteHandles.set(db, sqlite)
  return db
}

/**
 * Kysely's SQLite dialect with every transaction begun `IMMEDIATE`: holding SQLite's write lock from its start.
 * The store has a second connection, the API-call log's insert thread (src/store/thread-inserter.ts), which
 * commits whenever its batch is ready, event loop or not. A transaction begun plainly (`DEFERRED`) that read
 * first and wrote after such a commit found its read snapshot stale and failed with SQLITE_BUSY at once ("database
 * is locked"; SQLite runs no busy handler for it, since waiting cannot help). Begun IMMEDIATE, it waits
 * (busy_timeout) for a batch in progress, about 1.5 ms, and then cannot be overtaken. Transactions on this
 * connection are one at a time anyway (Kysely's SQLite driver holds a mutex), so nothing else is lost.
 */
class WriteLockingSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver()
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'))
    }
    return driver
  }
}

export async function migrateToLatest(db: Db, pgSchema?: string): Promise<void> {
  if (pgSchema) await sql`create schema if not exists ${sql.id(pgSchema)}`.execute(db)
  // Kysely looks for its migration tables in every schema unless told which: another schema's would hide ours.
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
  })
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest()
    const failed = results?.find((r) => r.status === 'Error')
    if (!error && !failed) return
    // Kysely's PostgreSQL introspection reads the tables of every schema (pg_get_serial_sequence on each), so
    // a schema another process drops meanwhile fails it with "schema … does not exist". Nothing of ours was
    // touched then: looking again is right. Tests drop their schemas all the time; deployments hardly ever.
    if (!failed && attempt < 5 && vanishedOtherSchema(error, pgSchema)) continue
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${String(error ?? 'unknown error')}`,
    )
  }
}

function vanishedOtherSchema(error: unknown, ours: string | undefined): boolean {
  const named = /schema "([^"]+)" does not exist/.exec(String((error as Error | undefined)?.message))
  return named !== null && named[1] !== ours
}

export const nowIso = () => new Date().toISOString()

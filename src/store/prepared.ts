import { createHash, randomBytes } from 'node:crypto'
import type SQLite from 'better-sqlite3'
import { type Compilable, CompiledQuery } from 'kysely'
import type { QueryResultRow } from 'pg'
import { type Db, pgPoolOf, sqliteHandleOf } from './database.js'

/** Stands for the argument `name` while the query is built; the real value takes its place at each run. */
export type ArgOf<Args> = <K extends keyof Args & string>(name: K) => Args[K]

export interface PreparedQuery<Args, Row> {
  /** Every row the query answers. */
  all(args: Args): Promise<Row[]>
  /** The first row, or undefined. */
  first(args: Args): Promise<Row | undefined>
  /** Runs a write; answers how many rows it changed. */
  run(args: Args): Promise<number>
  /** Runs the write once for each argument set, all in one transaction; answers each run's changed rows. */
  runAll(argSets: readonly Args[]): Promise<number[]>
}

type Slot = { readonly arg: string } | { readonly value: unknown }

/**
 * A query of the hot paths (webhook deliveries) built and compiled by Kysely once, then run with new
 * arguments: on SQLite as one statement prepared once (on the store's connection, at once when no
 * transaction is open on it, else taken through Kysely after that transaction, so never inside another
 * caller's open transaction), on PostgreSQL as a named prepared statement. Kysely's compilation and
 * better-sqlite3's `prepare` cost more than a small indexed read or update itself, and PostgreSQL's parse and
 * plan a third of a small read's round trip (README, Deployment: a pooler must keep sessions).
 *
 * `build` receives `arg(name)`, a placeholder for each argument; constants written in the query stay
 * constants. Do not use it inside a transaction of the same store: it waits for the connection.
 */
export function preparedQuery<Args extends Record<string, unknown>, Row>(
  db: Db,
  build: (arg: ArgOf<Args>) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  let compiled: { sql: string; slots: Slot[] } | undefined
  const compile = () => {
    if (compiled) return compiled
    const marker = `\u0000arg:${randomBytes(6).toString('hex')}:`
    const query = build(((name: string) => `${marker}${name}`) as ArgOf<Args>).compile()
    const slots = query.parameters.map(
      (p): Slot =>
        typeof p === 'string' && p.startsWith(marker) ? { arg: p.slice(marker.length) } : { value: p },
    )
    compiled = { sql: query.sql, slots }
    return compiled
  }
  const parametersOf = (args: Args) =>
    compile().slots.map((s) => ('arg' in s ? (args[s.arg] ?? null) : s.value))

  const sqlite = sqliteHandleOf(db)
  if (sqlite) {
    let statement: SQLite.Statement | undefined
    // Prepared on first use: the tables exist once migrations ran, which is after the store opened.
    const prepared = () => {
      statement ??= sqlite.prepare(compile().sql)
      return statement
    }
    const onConnection = <T>(use: (statement: SQLite.Statement) => T): Promise<T> => {
      // With no transaction open on the store's one connection there is nothing to wait for: better-sqlite3
      // runs the statement synchronously, so it cannot interleave with another caller's statements, and it
      // commits on its own. This skips Kysely's connection hand-over (a mutex and several promises), which
      // was about a tenth of the delivery path's own CPU time (HTTP aside). Inside another caller's
      // transaction, wait for it.
      if (!sqlite.inTransaction) {
        try {
          return Promise.resolve(use(prepared()))
        } catch (err) {
          return Promise.reject(err)
        }
      }
      return db.connection().execute(async () => use(prepared()))
    }
    const runAll = sqlite.transaction((s: SQLite.Statement, argSets: readonly Args[]) =>
      argSets.map((args) => s.run(parametersOf(args)).changes),
    )
    return {
      all: (args) => onConnection((s) => s.all(parametersOf(args)) as Row[]),
      first: (args) => onConnection((s) => s.get(parametersOf(args)) as Row | undefined),
      run: (args) => onConnection((s) => s.run(parametersOf(args)).changes),
      runAll: (argSets) => onConnection((s) => runAll(s, argSets)),
    }
  }

  const execute = (args: Args, on: Pick<Db, 'executeQuery'> = db) =>
    on.executeQuery<Row>(CompiledQuery.raw(compile().sql, parametersOf(args)))
  const changed = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0)
  const inTransaction = (argSets: readonly Args[]) =>
    db.transaction().execute(async (trx) => {
      const counts: number[] = []
      for (const args of argSets) counts.push(changed(await execute(args, trx)))
      return counts
    })
  const pool = pgPoolOf(db)
  if (pool) {
    // A named statement: each pooled connection has PostgreSQL parse and plan it once, not on every run
    // (about a third of a pending-deliveries read's round trip). The name follows the text, so no two texts
    // ever share one. Straight on the pool: Kysely's connection provider adds nothing here.
    let name: string | undefined
    const run = (args: Args) => {
      const text = compile().sql
      name ??= `unigate_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`
      return pool.query<Row & QueryResultRow>({ name, text, values: parametersOf(args) })
    }
    return {
      all: async (args) => (await run(args)).rows,
      first: async (args) => (await run(args)).rows[0],
      run: async (args) => (await run(args)).rowCount ?? 0,
      runAll: inTransaction,
    }
  }
  return {
    all: async (args) => [...(await execute(args)).rows],
    first: async (args) => (await execute(args)).rows[0],
    run: async (args) => changed(await execute(args)),
    runAll: inTransaction,
  }
}

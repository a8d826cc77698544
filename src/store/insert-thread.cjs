// @ts-check
/**
 * The worker thread of src/store/thread-inserter.ts: appends rows to one table of the embedded store on a
 * SQLite connection of its own, so the inserts (about 8 µs a row for the API-call log) run beside the event
 * loop instead of in it.
 *
 * Plain CommonJS, not TypeScript: a worker's entry is a file Node loads as it is, and Node 20 loads no
 * TypeScript in a worker under tsx or vitest (tsx's hooks do not reach worker threads there:
 * ERR_UNKNOWN_FILE_EXTENSION); the bundle (scripts/build.ts) copies this file next to its chunks.
 *
 * workerData: `sqliteModule` (better-sqlite3's resolved path, so the thread loads the server's own copy
 * whatever its working directory), `file` (the store), `statement` (a one-row INSERT, written by Kysely in
 * the server) and `columns` (its parameter count). Each message `{ seq, values }` carries rows flattened
 * into one array of `columns` values each, inserted in one transaction; the answer `{ seq }` says they are
 * committed, `{ seq, error, busy }` that none is (`busy`: the store stayed locked past busy_timeout).
 */
const { parentPort, workerData } = require('node:worker_threads')

/** The prepared insert; a failure to open or prepare ends the thread with a plain Error, which reaches the server whole (better-sqlite3's own error class arrives without its message). */
function prepare() {
  try {
    const SQLite = require(workerData.sqliteModule)
    // fileMustExist: the server's store, never a new empty file beside it should that one be gone.
    const db = new SQLite(workerData.file, { fileMustExist: true })
    // As the server's own connection (src/store/database.ts): the store is already in WAL mode, and a write
    // that finds the server's connection writing waits for it rather than failing.
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    return { db, insert: db.prepare(workerData.statement) }
  } catch (err) {
    throw new Error(err instanceof Error ? err.message : String(err))
  }
}

const { db, insert } = prepare()
const columns = Number(workerData.columns)

const insertAll = db.transaction((/** @type {unknown[]} */ values) => {
  for (let at = 0; at < values.length; at += columns) insert.run(values.slice(at, at + columns))
})

parentPort?.on('message', (/** @type {{ seq: number, values: unknown[] }} */ message) => {
  try {
    insertAll(message.values)
    parentPort?.postMessage({ seq: message.seq })
  } catch (err) {
    const code = /** @type {{ code?: unknown }} */ (err).code
    parentPort?.postMessage({
      seq: message.seq,
      error: err instanceof Error ? err.message : String(err),
      // Still locked after busy_timeout: the server's own connection held a transaction that long.
      busy: typeof code === 'string' && code.startsWith('SQLITE_BUSY'),
    })
  }
})

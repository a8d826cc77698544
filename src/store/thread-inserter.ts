import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { bulkInserter, insertStatement, type Row, rowValues, type Table } from './bulk-insert.js'
import { type Db, sqliteHandleOf } from './database.js'

/** Appends rows to one table; `close` stops what `append` started, once the last append has settled. */
export interface RowAppender<R> {
  /** Resolves once every row is committed, rejects when none is. */
  append(rows: readonly R[]): Promise<void>
  close(): Promise<void>
}

/** The worker's entry, beside this module in src/ and beside the bundle's chunks in dist/ (scripts/build.ts). */
export const INSERT_THREAD_FILE = 'insert-thread.cjs'

/**
 * An appender that inserts on a worker thread with a SQLite connection of its own when the store is an
 * embedded file: the inserts, their transaction and SQLite's page writes then run beside the event loop, not
 * in it (issue 12: about 8 µs of every logged request's time in the server's thread, BENCHMARKS.md). The
 * server's thread still builds the rows and hands them over as one flat array a batch.
 *
 * PostgreSQL's writes are already off the event loop (the server waits on a socket), and an in-memory SQLite
 * store cannot be opened twice: both insert as `bulkInserter` does. So does a store whose thread stopped (it
 * could not start, or died): `onThreadLost` is told once, and every later batch is inserted in the server's
 * thread, so no row is lost to it. A batch in flight when the thread died is inserted that way too, passing
 * over any of its rows the thread committed before it died.
 *
 * Both connections write to one file, and SQLite lets one write at a time: a write of the server's that finds
 * the thread's transaction open waits (busy_timeout) until it commits, which a batch of 200 rows does in about
 * 1.5 ms.
 */
export function threadedInserter<T extends Table>(
  db: Db,
  table: T,
  columns: readonly (keyof Row<T> & string)[],
  onThreadLost: (err: Error) => void,
): RowAppender<Row<T>> {
  const sqlite = sqliteHandleOf(db)
  if (!sqlite || sqlite.memory) return { append: bulkInserter(db, table, columns), close: async () => {} }
  // A batch the thread was writing when it died may be committed already: written again here, its rows pass
  // over the stored ones instead of failing the whole batch on its keys (and being reported as not written).
  const inline = bulkInserter(db, table, columns, { skipStored: true })
  let thread: InsertThread | undefined
  let lost = false
  return {
    async append(rows) {
      if (rows.length === 0) return
      if (!lost) {
        thread ??= new InsertThread(sqlite.name, insertStatement(db, table, columns, 1), columns.length)
        const values: unknown[] = []
        for (const row of rows) rowValues(row, columns, values)
        try {
          return await thread.append(values)
        } catch (err) {
          // Locked out past busy_timeout by a long transaction of the server's own connection: written in
          // the server's thread instead, which waits its turn on that connection rather than a timeout.
          if (err instanceof ThreadBusy) return await inline(rows)
          if (!(err instanceof ThreadLost)) throw err
          if (!lost) onThreadLost(err)
          lost = true
        }
      }
      await inline(rows)
    },
    async close() {
      // Quietly: a batch after this (none is expected) goes to the server's thread, not to a stopped one.
      lost = true
      await thread?.stop()
    },
  }
}

/** The worker stopped: whatever it was given and had not answered may not be written. */
class ThreadLost extends Error {}

/** The worker found the store locked for longer than its busy_timeout; the batch is not written. */
class ThreadBusy extends Error {}

interface Pending {
  resolve(): void
  reject(err: Error): void
}

/** One worker running insert-thread.cjs, and the batches it has not answered yet. */
class InsertThread {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private seq = 0
  private stopped: Error | undefined

  constructor(file: string, statement: string, columns: number) {
    this.worker = new Worker(new URL(`./${INSERT_THREAD_FILE}`, import.meta.url), {
      workerData: {
        sqliteModule: createRequire(import.meta.url).resolve('better-sqlite3'),
        file,
        statement,
        columns,
      },
    })
    // Held open only while a batch waits for its answer: an idle thread never keeps the process alive.
    this.worker.unref()
    this.worker.on('message', (answer: { seq: number; error?: string; busy?: boolean }) => {
      const waiting = this.pending.get(answer.seq)
      if (!waiting) return
      this.pending.delete(answer.seq)
      if (this.pending.size === 0) this.worker.unref()
      if (answer.error === undefined) waiting.resolve()
      else waiting.reject(answer.busy ? new ThreadBusy(answer.error) : new Error(answer.error))
    })
    this.worker.on('error', (err) => this.lose(new ThreadLost(`the insert thread failed: ${err.message}`)))
    this.worker.on('exit', (code) => this.lose(new ThreadLost(`the insert thread exited with code ${code}`)))
  }

  append(values: unknown[]): Promise<void> {
    if (this.stopped) return Promise.reject(this.stopped)
    const seq = this.seq++
    return new Promise<void>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref()
      this.pending.set(seq, { resolve, reject })
      this.worker.postMessage({ seq, values })
    })
  }

  async stop(): Promise<void> {
    this.stopped ??= new ThreadLost('the insert thread was stopped')
    await this.worker.terminate()
  }

  private lose(err: ThreadLost): void {
    this.stopped ??= err
    for (const waiting of this.pending.values()) waiting.reject(this.stopped)
    this.pending.clear()
  }
}

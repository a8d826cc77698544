import { newTimeOrderedId } from '../crypto/ids.js'
import { type Db, inPageOrder, paged, type RowAppender, threadedInserter } from '../store/index.js'
import { API_CALL_COLUMNS, type ApiCallView, apiCallRow, apiCallView, type NewApiCall } from './api-call.js'

export interface ApiCallFilter {
  readonly workspaceId: string
  readonly connectionId?: string
  readonly environment?: string
  /** true: only failed calls (status >= 400); false: only successful ones. */
  readonly error?: boolean
  readonly externalXref?: string
  readonly integrationType?: string
  readonly isBillable?: boolean
  readonly type?: string
  readonly webhookId?: string
  /** ISO-8601; calls never change, so "updated" is when they were made. */
  readonly updatedGte?: string
  readonly sort: 'created_at' | 'name' | 'status'
  readonly order: 'asc' | 'desc'
  readonly limit: number
  readonly offset: number
}

interface Logger {
  error(obj: unknown, msg: string): void
}

/**
 * The API-call log. Recording is off the request path: calls are queued in memory and written in
 * batches, so a tool call never waits for the database, and on the embedded store the batches are inserted
 * on a thread of their own (src/store/thread-inserter.ts). Reads flush first, so a process always sees its
 * own calls.
 */
export class ApiCallLog {
  private queue: ReturnType<typeof apiCallRow>[] = []
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()
  /** Workspaces with calls written since the retention prune last asked (src/apicalls/retention.ts). */
  private written = new Set<string>()
  private readonly appender: RowAppender<ReturnType<typeof apiCallRow>>

  constructor(
    private readonly db: Db,
    private readonly logger: Logger = { error: (obj, msg) => console.error(msg, obj) },
    private readonly flushDelayMs = 200,
    private readonly maxBatch = 200,
  ) {
    this.appender = threadedInserter(db, 'api_calls', API_CALL_COLUMNS, (err) =>
      this.logger.error({ err }, 'the API-call log writes in the server thread from now on'),
    )
  }

  record(call: NewApiCall): void {
    const now = Date.now()
    this.queue.push(apiCallRow(newTimeOrderedId('ac', now), new Date(now).toISOString(), call))
    if (this.queue.length >= this.maxBatch) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), this.flushDelayMs)
  }

  /** Writes everything queued so far; a failed write is logged, never thrown at a caller. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.queue
    this.queue = []
    // Writes are chained so a read that flushes waits for batches already in flight too.
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return
      try {
        await this.appender.append(batch)
        for (const row of batch) this.written.add(row.workspace_id)
      } catch (err) {
        this.logger.error({ err, dropped: batch.length }, 'could not record API calls')
      }
    })
    await this.writing
  }

  /** Writes what is queued, then stops the writer thread (the store is about to close). */
  async close(): Promise<void> {
    await this.flush()
    await this.appender.close()
  }

  /** The workspaces this process wrote calls for since the last time it was asked. */
  takeWrittenWorkspaces(): string[] {
    const written = [...this.written]
    this.written.clear()
    return written
  }

  /**
   * One page, cut over narrow (sort column, id) tuples first and only then read whole: ordering whole rows
   * (up to ~1.2 KB each) by a column no index holds sorted every row of the workspace, 0.8 s of a blocked
   * event loop on SQLite at 100,000 calls and `sort=status&offset=100000`; the ids alone take a seventh of
   * that (BENCHMARKS.md). The rows are then ordered exactly as the ids were, so the page is the same.
   */
  async list(f: ApiCallFilter): Promise<ApiCallView[]> {
    await this.flush()
    let q = this.db.selectFrom('api_calls').where('workspace_id', '=', f.workspaceId)
    if (f.connectionId) q = q.where('connection_id', '=', f.connectionId)
    if (f.environment) q = q.where('environment', '=', f.environment)
    if (f.externalXref) q = q.where('external_xref', '=', f.externalXref)
    if (f.integrationType) q = q.where('integration_type', '=', f.integrationType)
    if (f.type) q = q.where('type', '=', f.type)
    if (f.webhookId) q = q.where('webhook_id', '=', f.webhookId)
    if (f.isBillable !== undefined) q = q.where('is_billable', '=', f.isBillable ? 1 : 0)
    if (f.error === true) q = q.where('error', 'is not', null)
    if (f.error === false) q = q.where('error', 'is', null)
    if (f.updatedGte) q = q.where('created_at', '>=', f.updatedGte)
    const ids = paged(q.select('id'), f)
    const rows = await inPageOrder(
      this.db.selectFrom('api_calls').selectAll().where('id', 'in', ids),
      f,
    ).execute()
    return rows.map(apiCallView)
  }

  async get(workspaceId: string, id: string): Promise<ApiCallView | undefined> {
    await this.flush()
    const row = await this.db
      .selectFrom('api_calls')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst()
    return row && apiCallView(row)
  }
}

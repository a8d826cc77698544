import type { ApiCallLogSettings } from '../config.js'
import { Ticker } from '../jobs/ticker.js'
import { nextTurn } from '../loop-slices.js'
import type { Db } from '../store/index.js'
import type { ApiCallLog } from './api-call-log.js'

/**
 * Rows one delete removes. On SQLite each statement holds the event loop, and the loop turns between them:
 * removing 50,000 of the widest rows held it at most 22 ms at a time in slices of 100, 94 ms in slices of
 * 500, for the same total (BENCHMARKS.md).
 */
export const PRUNE_SLICE = 100

/** How often every workspace is pruned, not only those written to: the age bound needs no writes to pass. */
const FULL_SWEEP_EVERY_MS = 3_600_000

/**
 * Keeps the API-call log bounded: every call is a row and any key holder can make thousands a second, so
 * without this the table, and the time a sorted page takes to read, grew without end. A workspace keeps its
 * newest `maxPerWorkspace` calls, none older than `retentionMs`. Each process prunes, every `pruneEveryMs`,
 * the workspaces it wrote calls for since its last pass, and every workspace at start and hourly; several
 * processes pruning one workspace at once delete the same rows, which is harmless.
 */
export class ApiCallRetention {
  private readonly ticker: Ticker
  private lastFullSweepAt: number | undefined

  constructor(
    private readonly db: Db,
    private readonly log: ApiCallLog,
    private readonly settings: ApiCallLogSettings,
    onError: (err: unknown) => void,
  ) {
    this.ticker = new Ticker(settings.pruneEveryMs, () => this.tick().then(() => undefined), onError)
  }

  start(): void {
    this.ticker.start()
  }

  async stop(): Promise<void> {
    await this.ticker.stop()
  }

  /** One scheduled pass; answers the rows removed. */
  async tick(now = Date.now()): Promise<number> {
    const written = this.log.takeWrittenWorkspaces()
    try {
      if (this.lastFullSweepAt === undefined || now - this.lastFullSweepAt >= FULL_SWEEP_EVERY_MS) {
        return await this.pruneAll(now)
      }
      return await this.prune(written, now)
    } catch (err) {
      // The workspaces written to are forgotten once taken: the next pass looks at every workspace instead.
      this.lastFullSweepAt = undefined
      throw err
    }
  }

  /** Prunes every workspace now; answers the rows removed. */
  async pruneAll(now = Date.now()): Promise<number> {
    this.lastFullSweepAt = now
    const workspaces = await this.db.selectFrom('workspaces').select('id').execute()
    return this.prune(
      workspaces.map((w) => w.id),
      now,
    )
  }

  private async prune(workspaceIds: Iterable<string>, now: number): Promise<number> {
    let removed = 0
    for (const id of workspaceIds) {
      removed += await this.pruneWorkspace(id, new Date(now - this.settings.retentionMs).toISOString())
      await nextTurn()
    }
    return removed
  }

  /**
   * Removes the workspace's oldest calls, a slice at a time, up to the newer of two rows: the newest call past
   * the count bound, and the age cutoff. Both read the (workspace_id, created_at, id) index only.
   */
  private async pruneWorkspace(workspaceId: string, ageCutoff: string): Promise<number> {
    const pastBound = await this.db
      .selectFrom('api_calls')
      .select(['created_at', 'id'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(this.settings.maxPerWorkspace)
      .executeTakeFirst()
    const byCount = pastBound !== undefined && pastBound.created_at >= ageCutoff
    let removed = 0
    for (;;) {
      const oldest = this.db
        .selectFrom('api_calls')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where((eb) =>
          byCount
            ? eb.or([
                eb('created_at', '<', pastBound.created_at),
                eb.and([eb('created_at', '=', pastBound.created_at), eb('id', '<=', pastBound.id)]),
              ])
            : eb('created_at', '<', ageCutoff),
        )
        .orderBy('created_at')
        .orderBy('id')
        .limit(PRUNE_SLICE)
      const result = await this.db.deleteFrom('api_calls').where('id', 'in', oldest).executeTakeFirst()
      const count = Number(result.numDeletedRows)
      removed += count
      if (count < PRUNE_SLICE) return removed
      await nextTurn()
    }
  }
}

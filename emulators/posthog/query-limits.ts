import { setTimeout as sleep } from 'node:timers/promises'
import { PosthogHttpError } from './errors.js'

/** How the query API's limits are set; every field has PostHog's value as its default. */
export interface QueryLimitOptions {
  /**
   * Queries a team (project) may run at once through the API: PostHog's `api_per_team` limiter,
   * `max_concurrency=3` (PostHog/posthog@master:posthog/clickhouse/client/limit.py `get_api_team_rate_limiter`).
   */
  readonly concurrencyPerTeam?: number
  /**
   * How long a query waits for a free slot before the 429: PostHog retries for `retry_timeout=30.0` seconds
   * (same file). Tests set 0 to see the limit at once.
   */
  readonly slotWaitMs?: number
  /** How long each query takes here (0: answered at once), so that queries can overlap in tests. */
  readonly latencyMs?: number
  /**
   * Rows a query may read before PostHog stops it at `max_execution_time` (60 s,
   * PostHog/posthog@master:posthog/hogql/constants.py `HogQLGlobalSettings`). The emulator measures a
   * query's time in rows read (hogql/scan.ts); this is how many rows fit in the time.
   */
  readonly maxRowsScanned?: number
}

export const DEFAULT_QUERY_LIMITS: Required<QueryLimitOptions> = {
  concurrencyPerTeam: 3,
  slotWaitMs: 30_000,
  latencyMs: 0,
  maxRowsScanned: 5_000_000,
}

/** PostHog's limiter waits between tries: `retry=0.134` seconds (the p20 query duration). */
const SLOT_RETRY_MS = 134

/** What the emulator saw of the limits, for tests. */
export interface QueryStats {
  maxConcurrent: number
  throttled: number
  timedOut: number
}

/** Per-team query slots and the execution budget, as PostHog's query API enforces them. */
export class QueryLimiter {
  readonly limits: Required<QueryLimitOptions>
  readonly stats: QueryStats = { maxConcurrent: 0, throttled: 0, timedOut: 0 }
  private readonly running = new Map<number, number>()
  private nextTask = 1

  constructor(options: QueryLimitOptions = {}) {
    this.limits = { ...DEFAULT_QUERY_LIMITS, ...options }
  }

  /**
   * Takes one of the team's slots, waiting as PostHog does; then a 429 as `QueryViewSet.create` answers a
   * `ConcurrencyLimitExceeded`: DRF's `Throttled(detail=str(c))`, with no Retry-After (no wait is given)
   * (PostHog/posthog@master:posthog/api/query.py; the message from posthog/clickhouse/client/limit.py).
   */
  async acquire(teamId: number): Promise<() => void> {
    const task = `emulator${this.nextTask++}`
    const deadline = Date.now() + this.limits.slotWaitMs
    while ((this.running.get(teamId) ?? 0) >= this.limits.concurrencyPerTeam) {
      if (Date.now() >= deadline) {
        this.stats.throttled++
        throw new PosthogHttpError(429, {
          type: 'throttled_error',
          code: 'throttled',
          detail: `Exceeded maximum concurrency limit: ${this.limits.concurrencyPerTeam} for key: api:query:per-team:${teamId} and task: ${task}`,
          attr: null,
        })
      }
      await sleep(Math.min(SLOT_RETRY_MS, Math.max(1, deadline - Date.now())))
    }
    const now = (this.running.get(teamId) ?? 0) + 1
    this.running.set(teamId, now)
    this.stats.maxConcurrent = Math.max(this.stats.maxConcurrent, now)
    let released = false
    return () => {
      if (released) return
      released = true
      this.running.set(teamId, (this.running.get(teamId) ?? 1) - 1)
    }
  }

  /**
   * Refuses a query that would read more rows than fit in the execution time, as PostHog answers a query
   * stopped at `max_execution_time`: `ClickHouseQueryTimeOut`, 504, in drf-exceptions-hog's body for a 5xx
   * (PostHog/posthog@master:posthog/exceptions.py).
   */
  checkBudget(rowsScanned: number): void {
    if (rowsScanned <= this.limits.maxRowsScanned) return
    this.stats.timedOut++
    throw new PosthogHttpError(504, {
      type: 'server_error',
      code: 'error',
      detail:
        'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.',
      attr: null,
    })
  }

  async simulateWork(): Promise<void> {
    if (this.limits.latencyMs > 0) await sleep(this.limits.latencyMs)
  }
}

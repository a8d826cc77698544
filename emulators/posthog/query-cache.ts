import { createHash } from 'node:crypto'
import type { HogQLResult } from './hogql/execute.js'

/**
 * PostHog's query cache. `/query/` treats a missing `refresh` (and `false`, and `force_cache`) as
 * `blocking`, which answers from the cache unless the cached result is stale; `force_blocking` (or `true`)
 * always recalculates (PostHog/posthog@master:posthog/api/query.py `_process_query_request`,
 * posthog/hogql_queries/query_runner.py `ExecutionMode`, `execution_mode_from_refresh`). A HogQL query has
 * no date range, so `QueryRunner._is_stale` uses the "minute" interval: its result is stale 5 minutes after
 * it was calculated (15 in `lazy_async`) (query_runner.py `_is_stale`, `cache_target_age`;
 * posthog/caching/utils.py `staleness_threshold_map`). The key covers the query, the team and its time
 * zone (query_runner.py `get_cache_payload`).
 */

export type RefreshMode =
  | 'blocking'
  | 'async'
  | 'lazy_async'
  | 'force_blocking'
  | 'force_async'
  | 'force_cache'
  | 'async_except_on_cache_miss'

export const REFRESH_MODES: ReadonlySet<string> = new Set<RefreshMode>([
  'blocking',
  'async',
  'lazy_async',
  'force_blocking',
  'force_async',
  'force_cache',
  'async_except_on_cache_miss',
])

const MINUTE_MS = 60_000
export const STALE_AFTER_MS = 5 * MINUTE_MS
const LAZY_STALE_AFTER_MS = 15 * MINUTE_MS

export interface CachedResult {
  readonly result: HogQLResult
  readonly cacheKey: string
  readonly lastRefresh: number
}

/** The mode a request's `refresh` selects at `/query/`. */
export function refreshModeOf(refresh: unknown): RefreshMode {
  if (refresh === true) return 'force_blocking'
  if (typeof refresh === 'string' && REFRESH_MODES.has(refresh)) {
    // `force_cache` is remapped: "in query endpoint we always want to calculate if the cache is stale".
    return refresh === 'force_cache' ? 'blocking' : (refresh as RefreshMode)
  }
  return 'blocking'
}

export class QueryCache {
  private readonly entries = new Map<string, CachedResult>()
  private skewMs = 0

  constructor(private readonly clock: () => number = Date.now) {}

  /** The cache's time; tests move it forward to let results go stale. */
  now(): number {
    return this.clock() + this.skewMs
  }

  advanceClock(ms: number): void {
    this.skewMs += ms
  }

  keyOf(teamId: number, timeZone: string, query: string): string {
    return `cache_${createHash('sha256')
      .update(JSON.stringify([teamId, timeZone, query]))
      .digest('hex')}`
  }

  /** A fresh-enough cached result for this mode, or undefined when the query must run. */
  lookup(key: string, mode: RefreshMode): CachedResult | undefined {
    if (mode === 'force_blocking' || mode === 'force_async') return undefined
    const entry = this.entries.get(key)
    if (!entry) return undefined
    const maxAge = mode === 'lazy_async' ? LAZY_STALE_AFTER_MS : STALE_AFTER_MS
    return this.now() - entry.lastRefresh > maxAge ? undefined : entry
  }

  store(key: string, result: HogQLResult): CachedResult {
    const entry = { result, cacheKey: key, lastRefresh: this.now() }
    this.entries.set(key, entry)
    return entry
  }

  clear(): void {
    this.entries.clear()
  }
}

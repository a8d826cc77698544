import { ApiError } from '../../errors.js'

/**
 * PostHog runs at most 3 API queries per team at once (`get_api_team_rate_limiter`, `max_concurrency=3`,
 * posthog/clickhouse/client/limit.py); a fourth waits up to 30 s and then fails with 429. The integration
 * keeps its own queries to a team within that limit in this process: one queue per API host and project,
 * shared by every connection to that team.
 */
export const QUERIES_PER_TEAM = 3

/**
 * How long a query waits here for one of its team's slots: PostHog's own wait for a slot before its 429,
 * `retry_timeout=30.0` (same file). Waiting longer here would only hold the caller where PostHog would have
 * answered.
 */
export const SLOT_WAIT_MS = 30_000

/** How many queries may wait for a team's slots, and for how long, before the caller is answered 429. */
export interface SlotBounds {
  /** The connection's queue bound (UNIGATE_PROVIDER_CONNECTION_QUEUE), which the wait here must not escape. */
  readonly maxWaiting: number
  readonly maxWaitMs: number
}

const RETRY_AFTER = { 'retry-after': '1' }

class Slots {
  private running = 0
  private readonly waiting: (() => void)[] = []

  /** One of the team's slots, once free: the function that frees it (calling it again is harmless). */
  async take(bounds: SlotBounds): Promise<() => void> {
    if (this.running >= QUERIES_PER_TEAM) await this.turn(bounds)
    else this.running++
    let held = true
    return () => {
      if (!held) return
      held = false
      // The slot is handed to the first waiter (`running` already counts it), or given back.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  /**
   * Waits for a slot handed over by a freed one. Bounded like the connection's queue
   * (UNIGATE_PROVIDER_CONNECTION_QUEUE): a project's queue is shared by every connection verified with it,
   * each of which may bring its connection's share of queries here.
   */
  private turn(bounds: SlotBounds): Promise<void> {
    if (this.waiting.length >= bounds.maxWaiting) {
      return Promise.reject(
        new ApiError(
          429,
          `PostHog runs at most ${QUERIES_PER_TEAM} queries of a project at once and ${this.waiting.length} more ` +
            `are already waiting here, the limit (UNIGATE_PROVIDER_CONNECTION_QUEUE=${bounds.maxWaiting}); retry later`,
          RETRY_AFTER,
        ),
      )
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        clearTimeout(timer)
        resolve()
      }
      // Once this fires, `go` is out of the queue, so no slot can be handed to a query that gave up.
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(go)
        if (at !== -1) this.waiting.splice(at, 1)
        reject(
          new ApiError(
            429,
            `waited ${Math.round(bounds.maxWaitMs / 1000)} s for one of the ${QUERIES_PER_TEAM} queries PostHog ` +
              'runs at once per project (PostHog waits as long, then answers 429); retry later',
            RETRY_AFTER,
          ),
        )
      }, bounds.maxWaitMs)
      this.waiting.push(go)
    })
  }

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0
  }
}

const slotsByTeam = new Map<string, Slots>()

/**
 * One of the team's slots: the function that frees it. A query takes it once it holds its connection's and
 * workspace's provider slots (OutboundCall.admit), so that one waiting for its own workspace's slot does not
 * hold one of the team's 3, which connections of other workspaces share. Freed when the query's call ends,
 * or earlier: PostHog counts a query only while it runs (the limiter's `with` block wraps the query runner's
 * `calculate()`, PostHog/posthog@master:posthog/hogql_queries/query_runner.py), so its slot is free again
 * before the answer is sent, and a query may free its own once the answer has begun to arrive.
 */
export async function querySlot(team: string, bounds: SlotBounds): Promise<() => void> {
  let found = slotsByTeam.get(team)
  if (!found) {
    found = new Slots()
    slotsByTeam.set(team, found)
  }
  const slots = found
  const free = await slots.take(bounds)
  return () => {
    free()
    // Only while the team's queue is still this one: a query that freed its slot early may end after the
    // queue went idle and a newer one took its place, which must stay (deleting it would give the team a
    // fresh set of slots beside the one still in use).
    if (slots.idle && slotsByTeam.get(team) === slots) slotsByTeam.delete(team)
  }
}

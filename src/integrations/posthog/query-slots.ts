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

  async run<T>(task: (free: () => void) => Promise<T>, bounds: SlotBounds): Promise<T> {
    if (this.running >= QUERIES_PER_TEAM) await this.turn(bounds)
    else this.running++
    let held = true
    const free = () => {
      if (!held) return
      held = false
      // The slot is handed to the first waiter (`running` already counts it), or given back.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
    try {
      return await task(free)
    } finally {
      free()
    }
  }

  /**
   * Waits for a slot handed over by run(). Before this bound the waits were unbounded: the connection's
   * queue (UNIGATE_PROVIDER_CONNECTION_QUEUE) is taken only once a query is sent, so every list of a
   * flooded PostHog connection queued here, in memory, without the 429 the README promises.
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
 * Runs `task` in one of the team's slots. The slot is freed when the task settles, or earlier when the task
 * calls `free`: PostHog counts a query only while it runs (the limiter's `with` block wraps the query
 * runner's `calculate()`, PostHog/posthog@master:posthog/hogql_queries/query_runner.py), so its slot is
 * free again before the answer is sent, and a task may free its own once the answer has begun to arrive.
 */
export async function inQuerySlot<T>(
  team: string,
  task: (free: () => void) => Promise<T>,
  bounds: SlotBounds,
): Promise<T> {
  let slots = slotsByTeam.get(team)
  if (!slots) {
    slots = new Slots()
    slotsByTeam.set(team, slots)
  }
  try {
    return await slots.run(task, bounds)
  } finally {
    // Only while the team's queue is still this one: a task that freed its slot early may end after the
    // queue went idle and a newer one took its place, which must stay (deleting it would give the team a
    // fresh set of slots beside the one still in use).
    if (slots.idle && slotsByTeam.get(team) === slots) slotsByTeam.delete(team)
  }
}

import { type BusyScope, ConnectionBusyError } from '../errors.js'

export interface ConnectionLimits {
  /** Calls one key may run at once. */
  readonly concurrency: number
  /** Calls one key may have waiting beyond that; more are refused at once. */
  readonly queue: number
}

interface Lane {
  active: number
  readonly waiting: (() => void)[]
}

/**
 * Fairness per key: each key (a connection id, or a workspace id) runs at most `concurrency` provider calls
 * at once and queues at most `queue` more, first come first served; beyond that ConnectionBusyError naming
 * the `scope`, answered 429. The shared socket pool is sized above this, so one tenant's slow calls wait
 * behind each other, not in front of everyone else's.
 */
export class ConnectionLimiter {
  private readonly lanes = new Map<string, Lane>()

  constructor(
    readonly limits: ConnectionLimits,
    private readonly scope: BusyScope = 'connection',
  ) {}

  /** Waits for a slot; answers the function that frees it (calling it more than once is harmless). */
  async acquire(key: string): Promise<() => void> {
    let lane = this.lanes.get(key)
    if (!lane) {
      lane = { active: 0, waiting: [] }
      this.lanes.set(key, lane)
    }
    if (lane.active < this.limits.concurrency) {
      lane.active++
    } else {
      if (lane.waiting.length >= this.limits.queue) {
        throw new ConnectionBusyError(this.limits.concurrency, this.limits.queue, this.scope)
      }
      // The slot is handed over by release(): `active` already counts this call when it resumes.
      await new Promise<void>((resolve) => lane!.waiting.push(resolve))
    }
    const held = lane
    let released = false
    return () => {
      if (released) return
      released = true
      const next = held.waiting.shift()
      if (next) return next()
      held.active--
      if (held.active === 0 && this.lanes.get(key) === held) this.lanes.delete(key)
    }
  }

  /** Calls running and waiting for a key (tests and diagnostics). */
  load(key: string): { active: number; waiting: number } {
    const lane = this.lanes.get(key)
    return { active: lane?.active ?? 0, waiting: lane?.waiting.length ?? 0 }
  }
}

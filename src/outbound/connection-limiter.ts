import { ApiError, type BusyScope, ConnectionBusyError } from '../errors.js'

export interface ConnectionLimits {
  /** Calls one key may run at once. */
  readonly concurrency: number
  /** Calls one key may have waiting beyond that; more are refused at once. */
  readonly queue: number
}

/** How long a call waits for its slot: until its caller leaves, or until its operation's deadline. */
export interface SlotWait {
  /**
   * Called only when the call has to wait: registers `leave`, to be called once the caller has gone (its
   * request closed); the wait then ends and the call is never sent. A registration, not an AbortSignal, so
   * that the calls that never wait (nearly all) make nothing for it.
   */
  readonly callerGone?: (leave: () => void) => void
  /** The time (epoch ms) past which the call may not start: the wait ends with `expired()`. */
  readonly until?: number
  readonly expired?: () => Error
}

/** The call's caller closed its request while the call waited: nobody is left to answer (nginx's 499). */
export class CallerLeftError extends ApiError {
  constructor() {
    super(499, 'the caller closed its request before the provider call could start')
  }
}

interface Lane {
  active: number
  readonly waiting: (() => void)[]
}

/**
 * Fairness per key: each key (a connection id, or a workspace id) runs at most `concurrency` provider calls
 * at once and queues at most `queue` more, first come first served; beyond that ConnectionBusyError naming
 * the `scope`, answered 429. The shared socket pool is sized above this, so one tenant's slow calls wait
 * behind each other, not in front of everyone else's. A waiting call leaves the queue when its caller goes or
 * its deadline passes (SlotWait), so a queue behind calls that last (a relay to a slow reader) neither sends a
 * call nobody waits for nor holds a request past its deadline.
 */
export class ConnectionLimiter {
  private readonly lanes = new Map<string, Lane>()

  constructor(
    readonly limits: ConnectionLimits,
    private readonly scope: BusyScope = 'connection',
  ) {}

  /**
   * A slot now, if one is free: the function that frees it; else undefined, with nothing taken or queued.
   * Synchronous, so that the calls that find a slot free (nearly all) spend no promise on it. A lane with
   * callers waiting has no free slot (a release hands its slot to the first of them), so this never
   * overtakes them.
   */
  tryAcquire(key: string): (() => void) | undefined {
    let lane = this.lanes.get(key)
    if (lane !== undefined && lane.active >= this.limits.concurrency) return undefined
    if (lane === undefined) {
      lane = { active: 0, waiting: [] }
      this.lanes.set(key, lane)
    }
    lane.active++
    return this.releaseOf(key, lane)
  }

  /** Waits for a slot; answers the function that frees it (calling it more than once is harmless). */
  async acquire(key: string, wait: SlotWait = {}): Promise<() => void> {
    const now = this.tryAcquire(key)
    if (now) return now
    const lane = this.lanes.get(key)!
    if (lane.waiting.length >= this.limits.queue) throw this.busy()
    // The slot is handed over by release(): `active` already counts this call when it resumes.
    await this.queue(lane, wait)
    return this.releaseOf(key, lane)
  }

  /** Whether a key is at its bound: every slot taken and its queue full, so that a further call is refused. */
  full(key: string): boolean {
    const lane = this.lanes.get(key)
    return (
      lane !== undefined && lane.active >= this.limits.concurrency && lane.waiting.length >= this.limits.queue
    )
  }

  /** The refusal of a call past the bound, naming this limiter's scope and settings (answered 429). */
  busy(): ConnectionBusyError {
    return new ConnectionBusyError(this.limits.concurrency, this.limits.queue, this.scope)
  }

  private releaseOf(key: string, held: Lane): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = held.waiting.shift()
      if (next) return next()
      held.active--
      this.forgetIfIdle(key, held)
    }
  }

  /** Waits in `lane`'s queue for a slot handed over, or leaves it when the caller goes or time is up. */
  private queue(lane: Lane, wait: SlotWait): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      // A no-op once the slot was granted (the caller may go later, while its call runs).
      const leave = (err: Error) => {
        const at = lane.waiting.indexOf(granted)
        if (at === -1) return
        lane.waiting.splice(at, 1)
        if (timer) clearTimeout(timer)
        reject(err)
      }
      const granted = () => {
        if (timer) clearTimeout(timer)
        resolve()
      }
      lane.waiting.push(granted)
      wait.callerGone?.(() => leave(new CallerLeftError()))
      if (wait.until !== undefined) {
        const expired = wait.expired ?? (() => new Error('no provider slot came free in time'))
        timer = setTimeout(() => leave(expired()), Math.max(0, wait.until - Date.now()))
      }
    })
  }

  private forgetIfIdle(key: string, lane: Lane): void {
    if (lane.active === 0 && lane.waiting.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key)
  }

  /** Calls running and waiting for a key (tests and diagnostics). */
  load(key: string): { active: number; waiting: number } {
    const lane = this.lanes.get(key)
    return { active: lane?.active ?? 0, waiting: lane?.waiting.length ?? 0 }
  }
}

import { setMaxListeners } from 'node:events'

interface Slot {
  readonly controller: AbortController
  readonly openedAt: number
  readonly timer: NodeJS.Timeout
  readonly unlink: () => void
}

/**
 * Deadlines for many short operations without a timer (and an `AbortSignal.timeout` plus `AbortSignal.any`)
 * each: operations begun within the same slot (a tenth of the timeout, at most a second) share one signal,
 * which aborts with a `TimeoutError` one timeout after the slot closes. So an operation is cut between
 * `timeoutMs` and `timeoutMs + slot` after it began. The signal also aborts, with its reason, when the
 * caller's own signal does; a slot is kept per caller signal, so one caller's abort cuts only its own work.
 */
export class SharedDeadlines {
  private readonly slotMs: number
  /** The slot handing out signals now, per caller signal. */
  private readonly slots = new Map<AbortSignal | undefined, Slot>()
  /** Every slot whose deadline has not passed yet, current or not. */
  private readonly pending = new Set<Slot>()

  constructor(
    private readonly timeoutMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.slotMs = Math.max(1, Math.min(1_000, Math.ceil(timeoutMs / 10)))
  }

  /** A signal that aborts once the timeout has passed for an operation beginning now, or when `also` aborts. */
  signal(also?: AbortSignal): AbortSignal {
    if (also?.aborted) return also
    const now = this.clock()
    const current = this.slots.get(also)
    if (current && now - current.openedAt < this.slotMs && !current.controller.signal.aborted)
      return current.controller.signal
    const slot = this.open(also, now)
    this.slots.set(also, slot)
    this.pending.add(slot)
    return slot.controller.signal
  }

  private open(also: AbortSignal | undefined, now: number): Slot {
    const controller = new AbortController()
    // Every operation of the slot listens to this one signal; that many listeners are expected.
    setMaxListeners(0, controller.signal)
    const onAlso = () => controller.abort(also?.reason)
    also?.addEventListener('abort', onAlso, { once: true })
    const unlink = () => also?.removeEventListener('abort', onAlso)
    const timer = setTimeout(() => {
      unlink()
      this.pending.delete(slot)
      if (this.slots.get(also) === slot) this.slots.delete(also)
      controller.abort(new DOMException(`timed out after ${this.timeoutMs} ms`, 'TimeoutError'))
    }, this.timeoutMs + this.slotMs)
    // A pending deadline never keeps the process alive.
    timer.unref()
    const slot: Slot = { controller, openedAt: now, timer, unlink }
    return slot
  }

  /** Clears every pending deadline (their operations are over, or are cut by the caller's close). */
  close(): void {
    for (const slot of this.pending) {
      clearTimeout(slot.timer)
      slot.unlink()
    }
    this.pending.clear()
    this.slots.clear()
  }
}

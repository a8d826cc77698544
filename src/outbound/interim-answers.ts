import { ProviderTimeoutError } from '../errors.js'

/**
 * What undici calls `onInfo` on: the exchange's handler, whose `abort` it set when the request was
 * dispatched (`onConnect` in lib/api/api-request.js and api-stream.js, undici 7), before any answer.
 */
interface InterimHandler {
  readonly abort?: (reason: Error) => void
}

/**
 * Bounds an exchange's interim (1xx) answers: its final status and headers must come within `timeoutMs` of
 * its start once an interim answer has come. undici restarts its headers timeout at every interim answer, so
 * an address answering `103 Early Hints` every few hundred milliseconds held a call, and its connection's and
 * workspace's slots, for as long as it liked.
 *
 * An abort signal with a timer on every call bounds this too, and cost the unified list about a tenth of its
 * CPU per request (BENCHMARKS.md, fourteenth round): this costs a call one object until an interim answer
 * comes, which nearly none does. The first interim answer arms the timer; it aborts through the handler undici
 * calls `onInfo` on, since no signal was given. `answered` must be called once the final headers are in (or the
 * exchange failed), so that the timer cannot abort an answer already being read.
 */
export class InterimAnswerBound {
  private readonly started = Date.now()
  private timer: NodeJS.Timeout | undefined
  /** undici's `onInfo` option: undici calls it as a method of the exchange's handler (`this.onInfo(…)`). */
  readonly onInfo: (this: InterimHandler) => void

  constructor(private readonly timeoutMs: number) {
    const bound = this
    this.onInfo = function onInfo(this: InterimHandler) {
      bound.arm(this)
    }
  }

  /** Called once the final headers are in, or the exchange failed. */
  answered(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
  }

  private arm(handler: InterimHandler): void {
    if (this.timer !== undefined) return
    this.timer = setTimeout(
      () => handler.abort?.(new ProviderTimeoutError(this.timeoutMs)),
      Math.max(0, this.started + this.timeoutMs - Date.now()),
    )
  }
}

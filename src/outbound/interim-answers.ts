import { ProviderTimeoutError } from '../errors.js'

/**
 * What undici calls `onInfo` on: the exchange's handler, whose `abort` it set when the request was
 * dispatched (`onConnect` in lib/api/api-request.js and api-stream.js, undici 7), before any answer.
 */
interface InterimHandler {
  readonly abort?: (reason: Error) => void
}

/**
 * Bounds an exchange's interim (1xx) answers: once one has come, its final status and headers must come
 * within `timeoutMs` of the time undici's own headers timeout starts from, the end of the request (its start,
 * or the end of a streamed upload: undici leaves the headers timeout off while a body is still being sent, so
 * a steady upload is relayed to its end). undici restarts its headers timeout at every interim answer, so an
 * address answering `103 Early Hints` every few hundred milliseconds held a call, and its connection's and
 * workspace's slots, for as long as it liked.
 *
 * An abort signal with a timer on every call bounds this too, and cost the unified list about a tenth of its
 * CPU per request (BENCHMARKS.md, fourteenth round): this costs a call one object until an interim answer
 * comes, which nearly none does. The first interim answer arms the timer (or, during an upload, once the
 * upload has ended); it aborts through the handler undici calls `onInfo` on, since no signal was given.
 * `answered` must be called once the final headers are in (or the exchange failed), so that the timer cannot
 * abort an answer already being read.
 */
export class InterimAnswerBound {
  private sent = Date.now()
  private uploading = false
  private timer: NodeJS.Timeout | undefined
  private done = false
  /** The handler of the first interim answer, while the timer waits for an upload's end to be armed. */
  private pending: InterimHandler | undefined
  /** undici's `onInfo` option: undici calls it as a method of the exchange's handler (`this.onInfo(…)`). */
  readonly onInfo: (this: InterimHandler) => void

  constructor(
    private readonly timeoutMs: number,
    body?: unknown,
  ) {
    const bound = this
    this.onInfo = function onInfo(this: InterimHandler) {
      bound.interim(this)
    }
    if (isUnfinishedStream(body)) {
      this.uploading = true
      body.once('end', () => {
        this.uploading = false
        this.sent = Date.now()
        if (this.pending) this.arm(this.pending)
      })
    }
  }

  /** Called once the final headers are in, or the exchange failed. */
  answered(): void {
    this.done = true
    this.pending = undefined
    if (this.timer !== undefined) clearTimeout(this.timer)
  }

  private interim(handler: InterimHandler): void {
    if (this.uploading) this.pending ??= handler
    else this.arm(handler)
  }

  private arm(handler: InterimHandler): void {
    if (this.timer !== undefined || this.done) return
    this.pending = undefined
    this.timer = setTimeout(
      () => handler.abort?.(new ProviderTimeoutError(this.timeoutMs)),
      Math.max(0, this.sent + this.timeoutMs - Date.now()),
    )
  }
}

/** A request body still being read: a Node stream that has not ended. */
function isUnfinishedStream(body: unknown): body is NodeJS.ReadableStream & { readableEnded?: boolean } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { once?: unknown }).once === 'function' &&
    typeof (body as { pipe?: unknown }).pipe === 'function' &&
    (body as { readableEnded?: boolean }).readableEnded !== true
  )
}

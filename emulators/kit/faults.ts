/**
 * Faults make an emulator misbehave on purpose: rate limits, server errors, slow answers. They queue up
 * and each one is consumed by the requests it matches.
 */
export interface Fault {
  /** Status to answer with; without one the fault only delays, and the request is then served normally. */
  readonly status?: number
  /** How many matching requests the fault applies to (default 1). */
  readonly times?: number
  /** Body to send instead of the provider's usual error body for `status`. */
  readonly body?: unknown
  /**
   * Text sent verbatim instead of any body, as `application/json` unless `headers` say otherwise: for
   * answers `body` cannot express (`null`, a bare string, truncated JSON, bytes such as an archive; bytes
   * only when the fault is set in-process). A test hook, not provider behaviour.
   */
  readonly rawBody?: string | Buffer
  readonly headers?: Readonly<Record<string, string>>
  /** Wait this long before answering (a slow provider, a client timeout). */
  readonly delayMs?: number
  /**
   * Serve the request as usual (whatever it makes is made), then hold its answer this long before sending it:
   * a test fault, not a provider rule, for an answer lost on the way or later than the client's timeout (the
   * client never learns what was made). Takes no `status`, `body` or `rawBody`: the answer is the provider's own.
   */
  readonly lateAnswerMs?: number
  /** A regular expression the request path (without query) must match; all paths when absent. */
  readonly pathPattern?: string
  /** An HTTP method the request must have; all methods when absent. */
  readonly method?: string
}

interface QueuedFault {
  readonly fault: Fault
  readonly pattern?: RegExp
  remaining: number
}

export class FaultError extends Error {}

/** Checks a fault received as JSON (from the control endpoint) and reports what is wrong with it. */
export function parseFault(input: unknown): Fault {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new FaultError('a fault is a JSON object')
  const f = input as Record<string, unknown>
  const optionalInteger = (name: string, min: number, max: number) => {
    const v = f[name]
    if (v === undefined) return
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      throw new FaultError(`${name} must be an integer from ${min} to ${max}`)
    }
  }
  optionalInteger('status', 100, 599)
  optionalInteger('times', 1, 1_000_000)
  optionalInteger('delayMs', 0, 600_000)
  optionalInteger('lateAnswerMs', 1, 600_000)
  if (f.lateAnswerMs !== undefined) {
    if (f.status !== undefined || f.body !== undefined || f.rawBody !== undefined)
      throw new FaultError(
        'lateAnswerMs serves the request and sends its own answer late: it takes no status, body or rawBody',
      )
  } else if (f.status === undefined && f.delayMs === undefined)
    throw new FaultError('a fault needs a status, a delayMs, or both, or a lateAnswerMs')
  for (const name of ['pathPattern', 'method'] as const) {
    if (f[name] !== undefined && typeof f[name] !== 'string') throw new FaultError(`${name} must be a string`)
  }
  if (f.rawBody !== undefined && typeof f.rawBody !== 'string' && !Buffer.isBuffer(f.rawBody))
    throw new FaultError('rawBody must be a string (or bytes, in-process)')
  if (f.headers !== undefined) {
    const headers = f.headers
    if (!headers || typeof headers !== 'object' || Array.isArray(headers)) {
      throw new FaultError('headers must be an object of strings')
    }
    for (const value of Object.values(headers)) {
      if (typeof value !== 'string') throw new FaultError('headers must be an object of strings')
    }
  }
  if (typeof f.pathPattern === 'string') compilePattern(f.pathPattern)
  return f as Fault
}

function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern)
  } catch {
    throw new FaultError(`pathPattern '${pattern}' is not a valid regular expression`)
  }
}

export class FaultQueue {
  private queue: QueuedFault[] = []

  add(fault: Fault): void {
    const checked = parseFault(fault)
    this.queue.push({
      fault: checked,
      pattern: checked.pathPattern === undefined ? undefined : compilePattern(checked.pathPattern),
      remaining: checked.times ?? 1,
    })
  }

  clear(): void {
    this.queue = []
  }

  /** The faults still waiting, with how many requests each will still hit. */
  pending(): Array<Fault & { remaining: number }> {
    return this.queue.map((q) => ({ ...q.fault, remaining: q.remaining }))
  }

  /** The first queued fault matching this request, consumed once; undefined when the request should be served. */
  take(method: string, path: string): Fault | undefined {
    const index = this.queue.findIndex(
      (q) =>
        (q.fault.method === undefined || q.fault.method.toUpperCase() === method.toUpperCase()) &&
        (q.pattern === undefined || q.pattern.test(path)),
    )
    if (index < 0) return undefined
    const queued = this.queue[index] as QueuedFault
    queued.remaining -= 1
    if (queued.remaining <= 0) this.queue.splice(index, 1)
    return queued.fault
  }
}

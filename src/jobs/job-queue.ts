/**
 * Runs work in the background. A job names a kind (`webhook-poll`) and a subject (a webhook id); the
 * handler looks up everything else in the database, so a job is only a wake-up call and losing one loses
 * no data: the webhooks module re-enqueues whatever the database says is due.
 *
 * `signal` aborts when the process stops and the job outlived the stop timeout: the handler then stops
 * at its next safe point and gives up its lease, so another process takes the work over at once. What it
 * throws after that is not reported (the abandoned work is expected to fail).
 */
export type JobHandler = (subject: string, signal: AbortSignal) => Promise<void>

export interface JobQueue {
  /** Which implementation runs the jobs (for logs and tests). */
  readonly kind: 'in-process' | 'pg-boss'
  /** Registers what runs for a kind of job; call before start(). */
  handle(kind: string, handler: JobHandler): void
  /**
   * Asks for `kind` to run for `subject` soon. A job already waiting for the same kind and subject absorbs
   * this one, so asking often is cheap.
   */
  enqueue(kind: string, subject: string): Promise<void>
  start(): Promise<void>
  /**
   * Takes no more jobs, waits up to the stop timeout for the running ones to finish, then aborts those
   * still running and waits (briefly, see ABANDON_GRACE_MS) for them to give up their leases.
   */
  stop(): Promise<void>
}

/**
 * How long an aborted job may take to unwind (release its lease) before stop() returns without it. A
 * handler honours its signal at its next database or HTTP step, so this is short; one that does not is
 * left behind and its lease simply expires.
 */
export const ABANDON_GRACE_MS = 2_000

/** Settles when every promise has, or after `ms`; true when all settled in time. */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([Promise.allSettled([...promises]).then(() => true as const), expired])
  } finally {
    clearTimeout(timer)
  }
}

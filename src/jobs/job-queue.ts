/**
 * Runs work in the background. A job names a kind (`webhook-poll`) and a subject (a webhook id); the
 * handler looks up everything else in the database, so a job is only a wake-up call and losing one loses
 * no data: the webhooks module re-enqueues whatever the database says is due.

 */
export type JobHandler = (subject: string, signals: JobSignals) => Promise<void>

/** How a running job learns that its process is stopping. */
export interface JobSignals {
  /**
   * The process is stopping: finish the unit of work in hand (the delivery being sent, the poll being
   * read) and return, rather than go on through a backlog another process can take over.
   */
  readonly stopping: AbortSignal
  /**
   * The job outlived the stop timeout: stop now, at the next HTTP or database step, without recording the
   * unfinished attempt, and give the lease back so another process takes the work over at once. What the
   * handler throws after this is not reported (abandoned work is expected to fail).
   */
  readonly abandoned: AbortSignal
}

/** The two stages of a stop, as signals for the jobs running when it happens. */
export class JobStop {
  private readonly stoppingController = new AbortController()
  private readonly abandonedController = new AbortController()
  readonly signals: JobSignals = {
    stopping: this.stoppingController.signal,
    abandoned: this.abandonedController.signal,
  }

  begin(): void {
    this.stoppingController.abort()
  }

  abandon(): void {
    this.abandonedController.abort()
  }
}

/**
 * Whose work a job is, and where it stands among that owner's work, so that no owner's backlog stands in
 * front of, or fills the slots of, another's. In this server the owner is a workspace.
 */
export interface JobPlace {
  /**
   * The job's owner. While an owner has jobs running, its further jobs start only on a slot that leaves one
   * free for an owner with nothing running; and of the jobs that may start, those of the owner with the
   * fewest running go first. Without one, the job is its own owner (it shares with nothing).
   */
  readonly group?: string
  /**
   * The job's place among its owner's due work (0, the default, first): of two waiting jobs whose owners
   * have as many running, the one of the earlier turn starts first, whenever each was asked for.
   */
  readonly turn?: number
}

export interface JobQueue {
  /** Which implementation runs the jobs (for logs and tests). */
  readonly kind: 'in-process' | 'pg-boss'
  /** Registers what runs for a kind of job; call before start(). */
  handle(kind: string, handler: JobHandler): void
  /**
   * Asks for `kind` to run for `subject` soon. A job already waiting for the same kind and subject absorbs
   * this one, so asking often is cheap. `place` says whose work it is and where it stands (see JobPlace).
   */
  enqueue(kind: string, subject: string, place?: JobPlace): Promise<void>
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

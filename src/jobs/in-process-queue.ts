import { ABANDON_GRACE_MS, type JobHandler, type JobQueue, JobStop, settleWithin } from './job-queue.js'

/**
 * Jobs in this process's memory, for the embedded (SQLite, single-process) store. Nothing is persisted
 * here because nothing needs to be: schedules and pending deliveries live in the database, and after a
 * restart the webhooks module enqueues again whatever is due.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process' as const
  private readonly handlers = new Map<string, JobHandler>()
  /** Waiting jobs in the order they start: by turn, then as asked for. */
  private readonly waiting: { key: string; turn: number }[] = []
  /** The turn of each waiting job, by key. */
  private readonly waitingKeys = new Map<string, number>()
  private readonly runningKeys = new Set<string>()
  /** Keys asked for again while running, with the turn asked: they run once more afterwards, never twice at once. */
  private readonly again = new Map<string, number>()
  private readonly running = new Set<Promise<void>>()
  private started = false
  /** Tells running jobs that the queue is stopping, then that they are abandoned. */
  private stopSignals = new JobStop()
  /** Callers of allStarted() waiting for the last waiting job to start. */
  private startWaiters: (() => void)[] = []

  constructor(
    private readonly concurrency: number,
    private readonly onError: (err: unknown, kind: string, subject: string) => void,
    /** How long stop() waits for running jobs before abandoning them. */
    private readonly stopTimeoutMs = 20_000,
  ) {}

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler)
  }

  async enqueue(kind: string, subject: string, turn = 0): Promise<void> {
    const key = `${kind}\u0000${subject}`
    const waitingTurn = this.waitingKeys.get(key)
    if (waitingTurn !== undefined) {
      // Absorbed; asked for at an earlier turn, it moves up to that turn.
      if (turn < waitingTurn) {
        this.waiting.splice(this.waitingIndexOf(key), 1)
        this.wait(key, turn)
      }
      return
    }
    if (this.runningKeys.has(key)) {
      this.again.set(key, Math.min(turn, this.again.get(key) ?? turn))
      return
    }
    this.wait(key, turn)
    this.pump()
  }

  /** Puts `key` behind every waiting job of its turn or an earlier one, ahead of later turns. */
  private wait(key: string, turn: number): void {
    let at = this.waiting.length
    while (at > 0 && (this.waiting[at - 1] as { turn: number }).turn > turn) at--
    this.waiting.splice(at, 0, { key, turn })
    this.waitingKeys.set(key, turn)
  }

  private waitingIndexOf(key: string): number {
    return this.waiting.findIndex((w) => w.key === key)
  }

  /**
   * Settles once no job waits for a slot any more: every job asked for so far has started (or is marked to
   * run again after its running self), or the queue stopped. Lets a caller that fetches jobs from elsewhere
   * take more only when there is room for them.
   */
  allStarted(): Promise<void> {
    if (!this.started || this.waiting.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.startWaiters.push(resolve))
  }

  private settleStartWaiters(): void {
    if (this.started && this.waiting.length > 0) return
    const waiters = this.startWaiters
    this.startWaiters = []
    for (const resolve of waiters) resolve()
  }

  async start(): Promise<void> {
    this.started = true
    this.stopSignals = new JobStop()
    this.pump()
  }

  async stop(): Promise<void> {
    this.started = false
    // Waiting jobs are dropped, not lost: the database still says they are due.
    this.waiting.length = 0
    this.waitingKeys.clear()
    this.again.clear()
    this.settleStartWaiters()
    this.stopSignals.begin()
    if (await settleWithin(this.running, this.stopTimeoutMs)) return
    this.stopSignals.abandon()
    await settleWithin(this.running, ABANDON_GRACE_MS)
  }

  private pump(): void {
    while (this.started && this.running.size < this.concurrency) {
      const at = this.waiting.findIndex((w) => !this.runningKeys.has(w.key))
      if (at === -1) break
      const { key } = this.waiting.splice(at, 1)[0] as { key: string }
      this.waitingKeys.delete(key)
      this.run(key)
    }
    this.settleStartWaiters()
  }

  private run(key: string): void {
    const [kind, subject] = key.split('\u0000') as [string, string]
    const handler = this.handlers.get(kind)
    this.runningKeys.add(key)
    const { signals } = this.stopSignals
    const job = (async () => {
      try {
        if (handler) await handler(subject, signals)
      } catch (err) {
        if (!signals.abandoned.aborted) this.onError(err, kind, subject)
      }
    })()
    this.running.add(job)
    void job.finally(() => {
      this.running.delete(job)
      this.runningKeys.delete(key)
      const turn = this.again.get(key)
      this.again.delete(key)
      if (turn !== undefined && this.started) this.wait(key, turn)
      this.pump()
    })
  }
}

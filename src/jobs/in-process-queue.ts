import {
  ABANDON_GRACE_MS,
  type JobHandler,
  type JobPlace,
  type JobQueue,
  JobStop,
  settleWithin,
} from './job-queue.js'

/** A job asked for and not yet started. */
interface Waiting {
  readonly key: string
  readonly turn: number
  readonly group: string
}

/**
 * Jobs in this process's memory, for the embedded (SQLite, single-process) store. Nothing is persisted
 * here because nothing needs to be: schedules and pending deliveries live in the database, and after a
 * restart the webhooks module enqueues again whatever is due.
 *
 * Slots are shared between owners (JobPlace.group, a workspace): one slot is kept for an owner with
 * nothing running, so jobs that each run for many minutes (a webhook check may take up to half an hour)
 * cannot all be one workspace's while another's wait; and a freed slot goes to the owner with the fewest
 * jobs running. With one slot, nothing can be kept: owners take turns as their jobs finish.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process' as const
  private readonly handlers = new Map<string, JobHandler>()
  /** Waiting jobs by turn, then as asked for (the order they start in among owners with as many running). */
  private readonly waiting: Waiting[] = []
  /** Each waiting job, by key. */
  private readonly waitingKeys = new Map<string, Waiting>()
  private readonly runningKeys = new Set<string>()
  /** How many jobs each owner has running (owners with none are absent). */
  private readonly runningByGroup = new Map<string, number>()
  /** Keys asked for again while running, with their place: they run once more afterwards, never twice at once. */
  private readonly again = new Map<string, Waiting>()
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
    /**
     * Jobs held back for the kept slot beyond this many are dropped, the latest first. For a caller that
     * fetches jobs from elsewhere (pg-boss) and keeps fetching while a slot is free: the work of a dropped job
     * is still due in the database and is asked for again. Unbounded by default: here a job is kept until run.
     */
    private readonly holdAtMost = Number.POSITIVE_INFINITY,
  ) {}

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler)
  }

  async enqueue(kind: string, subject: string, place: JobPlace = {}): Promise<void> {
    const key = `${kind}\u0000${subject}`
    const job: Waiting = { key, turn: place.turn ?? 0, group: place.group ?? key }
    const waiting = this.waitingKeys.get(key)
    if (waiting) {
      // Absorbed; asked for at an earlier turn, it moves up to that turn.
      if (job.turn < waiting.turn) {
        this.waiting.splice(this.waiting.indexOf(waiting), 1)
        this.wait(job)
      }
      return
    }
    if (this.runningKeys.has(key)) {
      const again = this.again.get(key)
      if (!again || job.turn < again.turn) this.again.set(key, job)
      return
    }
    this.wait(job)
    this.pump()
  }

  /** Puts `job` behind every waiting job of its turn or an earlier one, ahead of later turns. */
  private wait(job: Waiting): void {
    let at = this.waiting.length
    while (at > 0 && (this.waiting[at - 1] as Waiting).turn > job.turn) at--
    this.waiting.splice(at, 0, job)
    this.waitingKeys.set(job.key, job)
  }

  /**
   * Settles once there is room for more (see hasRoom): every job asked for so far has started (or is marked
   * to run again after its running self), or a slot is free and those still waiting are held back only for
   * the slot kept for other owners, or the queue stopped. Lets a caller that fetches jobs from elsewhere take
   * more only when there is room for them.
   */
  allStarted(): Promise<void> {
    if (this.hasRoom()) return Promise.resolve()
    return new Promise((resolve) => this.startWaiters.push(resolve))
  }

  /**
   * Nothing waits that could start now, and there is room for more: no job waits, or a slot is free (after
   * pump() every job still waiting is then held back for the slot kept for other owners). However many are
   * held, the free slot stays reachable: a caller fetching jobs from elsewhere may bring another owner's
   * job; the held ones are bounded by holdAtMost, so it cannot bring an owner's whole backlog.
   */
  private hasRoom(): boolean {
    if (!this.started || this.waiting.length === 0) return true
    return this.running.size < this.concurrency
  }

  private settleStartWaiters(): void {
    if (!this.hasRoom()) return
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
      const next = this.nextToStart()
      if (!next) break
      this.waiting.splice(this.waiting.indexOf(next), 1)
      this.waitingKeys.delete(next.key)
      this.run(next)
    }
    if (this.started && this.running.size < this.concurrency && this.waiting.length > this.holdAtMost) {
      // All of them are held back (nothing else could start on the free slot): keep the earliest.
      for (const dropped of this.waiting.splice(this.holdAtMost)) this.waitingKeys.delete(dropped.key)
    }
    this.settleStartWaiters()
  }

  /**
   * The waiting job to start on a free slot: of those allowed, the first (by turn, then as asked for) of the
   * owner with the fewest jobs running. An owner with jobs running is allowed only while the slot kept for
   * owners with nothing running stays free after it.
   */
  private nextToStart(): Waiting | undefined {
    const kept = this.concurrency > 1 ? 1 : 0
    const ownersWithJobsMayStart = this.running.size < this.concurrency - kept
    let best: Waiting | undefined
    let bestLoad = Number.POSITIVE_INFINITY
    for (const job of this.waiting) {
      const load = this.runningByGroup.get(job.group) ?? 0
      if (load > 0 && !ownersWithJobsMayStart) continue
      if (load < bestLoad) {
        best = job
        bestLoad = load
        if (load === 0) break
      }
    }
    return best
  }

  private run(job: Waiting): void {
    const { key, group } = job
    const [kind, subject] = key.split('\u0000') as [string, string]
    const handler = this.handlers.get(kind)
    this.runningKeys.add(key)
    this.runningByGroup.set(group, (this.runningByGroup.get(group) ?? 0) + 1)
    const { signals } = this.stopSignals
    const running = (async () => {
      try {
        if (handler) await handler(subject, signals)
      } catch (err) {
        if (!signals.abandoned.aborted) this.onError(err, kind, subject)
      }
    })()
    this.running.add(running)
    void running.finally(() => {
      this.running.delete(running)
      this.runningKeys.delete(key)
      const left = (this.runningByGroup.get(group) ?? 1) - 1
      if (left > 0) this.runningByGroup.set(group, left)
      else this.runningByGroup.delete(group)
      const again = this.again.get(key)
      this.again.delete(key)
      if (again && this.started) this.wait(again)
      this.pump()
    })
  }
}

import {
  ABANDON_GRACE_MS,
  type JobHandler,
  type JobPlace,
  type JobQueue,
  JobStop,
  settleWithin,
} from './job-queue.js'

/** A job asked for, with its place. */
interface Asked {
  readonly key: string
  readonly turn: number
  readonly group: string
}

/** A job asked for and not yet started; `seq` orders jobs of one turn as they were asked for. */
interface Waiting extends Asked {
  readonly seq: number
}

/** Whether `a` starts before `b` among owners with as many jobs running: by turn, then as asked for. */
const before = (a: Waiting, b: Waiting) => a.turn < b.turn || (a.turn === b.turn && a.seq < b.seq)

/** Where `job` is, or goes, in `list` (ordered by `before`; no two jobs have the same seq). */
function placeIn(list: readonly Waiting[], job: Waiting): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(list[mid] as Waiting, job)) lo = mid + 1
    else hi = mid
  }
  return lo
}

function insertInto(list: Waiting[], job: Waiting): number {
  const at = placeIn(list, job)
  list.splice(at, 0, job)
  return at
}

function removeFrom(list: Waiting[], job: Waiting): number {
  const at = placeIn(list, job)
  if (list[at] === job) list.splice(at, 1)
  return at
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
 *
 * Choosing the next job costs no look at every waiting one: waiting jobs are kept per owner, and the first
 * of each owner with nothing running in one ordered list, so the choice is that list's first or, failing
 * it, one of the owners with jobs running (no more than the concurrency). A busy workspace's backlog of
 * many thousand waiting jobs, held back from the kept slot, was otherwise read through on every job asked
 * for and every job ended.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process' as const
  private readonly handlers = new Map<string, JobHandler>()
  /** Each owner's waiting jobs, ordered by `before` (owners with none are absent). */
  private readonly waitingByGroup = new Map<string, Waiting[]>()
  /** The first waiting job of each owner with nothing running, ordered by `before`. */
  private readonly idleFirsts: Waiting[] = []
  /** Each waiting job, by key. */
  private readonly waitingKeys = new Map<string, Waiting>()
  private seq = 0
  private readonly runningKeys = new Set<string>()
  /** How many jobs each owner has running (owners with none are absent). */
  private readonly runningByGroup = new Map<string, number>()
  /** Keys asked for again while running, with their place: they run once more afterwards, never twice at once. */
  private readonly again = new Map<string, Asked>()
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
    const job: Asked = { key, turn: place.turn ?? 0, group: place.group ?? key }
    const waiting = this.waitingKeys.get(key)
    if (waiting) {
      // Absorbed; asked for at an earlier turn, it moves up to that turn.
      if (job.turn < waiting.turn) {
        this.unwait(waiting)
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
  private wait(asked: Asked): void {
    const job: Waiting = { ...asked, seq: ++this.seq }
    let list = this.waitingByGroup.get(job.group)
    if (!list) {
      list = []
      this.waitingByGroup.set(job.group, list)
    }
    const at = insertInto(list, job)
    this.waitingKeys.set(job.key, job)
    if (at === 0 && !this.runningByGroup.has(job.group)) {
      const previous = list[1]
      if (previous) removeFrom(this.idleFirsts, previous)
      insertInto(this.idleFirsts, job)
    }
  }

  /** Takes `job` out of the waiting ones (it starts, moves, or is dropped). */
  private unwait(job: Waiting): void {
    const list = this.waitingByGroup.get(job.group)
    if (!list) return
    const at = removeFrom(list, job)
    this.waitingKeys.delete(job.key)
    if (list.length === 0) this.waitingByGroup.delete(job.group)
    if (at === 0 && !this.runningByGroup.has(job.group)) {
      removeFrom(this.idleFirsts, job)
      const next = list[0]
      if (next) insertInto(this.idleFirsts, next)
    }
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
    if (!this.started || this.waitingKeys.size === 0) return true
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
    this.waitingByGroup.clear()
    this.idleFirsts.length = 0
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
      this.unwait(next)
      this.run(next)
    }
    // A slot is free and nothing could start on it: every waiting job is held back. Keep the earliest.
    if (this.started && this.running.size < this.concurrency) {
      while (this.waitingKeys.size > this.holdAtMost) {
        const latest = this.latestWaiting()
        if (!latest) break
        this.unwait(latest)
      }
    }
    this.settleStartWaiters()
  }

  /**
   * The waiting job to start on a free slot: of those allowed, the first (by turn, then as asked for) of the
   * owner with the fewest jobs running. An owner with jobs running is allowed only while the slot kept for
   * owners with nothing running stays free after it.
   */
  private nextToStart(): Waiting | undefined {
    const idle = this.idleFirsts[0]
    if (idle) return idle
    const kept = this.concurrency > 1 ? 1 : 0
    if (this.running.size >= this.concurrency - kept) return undefined
    // Owners with jobs running: no more of them than jobs running.
    let best: Waiting | undefined
    let bestLoad = Number.POSITIVE_INFINITY
    for (const [group, load] of this.runningByGroup) {
      const first = this.waitingByGroup.get(group)?.[0]
      if (!first) continue
      if (load < bestLoad || (load === bestLoad && best && before(first, best))) {
        best = first
        bestLoad = load
      }
    }
    return best
  }

  /** The waiting job that would start last among its owner's (held back ones are all of busy owners). */
  private latestWaiting(): Waiting | undefined {
    let latest: Waiting | undefined
    for (const list of this.waitingByGroup.values()) {
      const last = list[list.length - 1]
      if (last && (!latest || before(latest, last))) latest = last
    }
    return latest
  }

  private run(job: Waiting): void {
    const { key, group } = job
    const [kind, subject] = key.split('\u0000') as [string, string]
    const handler = this.handlers.get(kind)
    this.runningKeys.add(key)
    const load = this.runningByGroup.get(group) ?? 0
    if (load === 0) {
      // The owner is busy now: its first waiting job leaves the idle owners' list.
      const first = this.waitingByGroup.get(group)?.[0]
      if (first) removeFrom(this.idleFirsts, first)
    }
    this.runningByGroup.set(group, load + 1)
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
      else {
        this.runningByGroup.delete(group)
        const first = this.waitingByGroup.get(group)?.[0]
        if (first) insertInto(this.idleFirsts, first)
      }
      const again = this.again.get(key)
      this.again.delete(key)
      if (again && this.started) this.wait(again)
      this.pump()
    })
  }
}

import type pg from 'pg'
import type PgBoss from 'pg-boss'
import { pgBossModule, pgModule } from '../store/lazy-modules.js'
import { InProcessJobQueue } from './in-process-queue.js'
import { ABANDON_GRACE_MS, type JobHandler, type JobPlace, type JobQueue, settleWithin } from './job-queue.js'

/** What a job carries in pg-boss: its subject and its place (older jobs may lack the place). */
interface JobData extends JobPlace {
  readonly subject: string
}

export interface PgBossQueueOptions {
  readonly connectionString: string
  /** PostgreSQL schema for pg-boss's own tables. */
  readonly schema: string
  /** Jobs one process runs at once, per kind. */
  readonly concurrency: number
  /** How often an idle worker asks for jobs (pg-boss allows no less than 0.5 s). */
  readonly pollingIntervalSeconds: number
  /** How long stop() waits for running jobs before abandoning them (pg-boss counts at least 1 s). */
  readonly stopTimeoutMs: number
  readonly onError: (err: unknown, kind: string, subject: string) => void
}

/**
 * Jobs in PostgreSQL through pg-boss, shared by every server process on the database. Queues use the
 * `short` policy keyed by subject: at most one job waits per webhook, however many processes ask. (The
 * `singleton` and `stately` policies block a whole queue on a unique-key conflict in pg-boss 10, issue
 * #535.) That one job is not a lock: the handlers claim their webhook with a lease in the database, so a
 * job that pg-boss hands out twice still does the work once.
 *
 * pg-boss hands out jobs; this process runs them on an in-process queue per kind (at most `concurrency` at
 * once, never one subject twice at once). pg-boss's worker waits for its callback before it fetches again,
 * so the callback returns once the fetched jobs have started, not once they have finished: before, one job
 * fetched alone (the first a tick asked for) held the worker for its whole delivery run while the other
 * webhooks' jobs waited behind it. The callback still returns only when there is room, so a busy process
 * leaves further jobs to the others. Room includes the slot the in-process queue keeps for a workspace with
 * nothing running: while it is free, jobs held back for it wait here and the worker fetches again, so
 * another workspace's job can reach that slot. Held-back jobs are kept fewer than the concurrency; those
 * past that are dropped, so a workspace's backlog does not pile up here out of the other processes' reach
 * (and, when it did, stall the worker: the slot stayed free while another workspace's job waited in
 * PostgreSQL for one of the busy workspace's jobs to end). A job counts as done in pg-boss once it has been
 * taken; that is all a wake-up call needs (one held back and then dropped, by this bound or by a stop, is
 * due again in the database, and the scheduler asks for it again).
 *
 * Stopping stops pg-boss's workers (graceful, callbacks return at once) and the in-process queues, which
 * let running jobs finish up to the stop timeout and then abandon them. A fetch already in flight when the
 * stop begins still hands its jobs to our callback afterwards: it refuses them. The pool pg-boss queries
 * through is ours: it closes only after pg-boss's last query (it marks a batch complete, unawaited, right
 * after the callback returns) and would otherwise meet a closed pool.
 */
export class PgBossJobQueue implements JobQueue {
  readonly kind = 'pg-boss' as const
  private readonly boss: PgBoss
  private readonly pool: pg.Pool
  private readonly handlers = new Map<string, JobHandler>()
  /** Per kind, where the fetched jobs run. */
  private readonly local = new Map<string, InProcessJobQueue>()
  private readonly workerIds = new Map<string, string>()
  /** pg-boss's queries in flight, so the pool closes after the last (see drainQueries). */
  private readonly queries = new Set<Promise<unknown>>()
  /** Callbacks (one per fetched batch) still running. */
  private readonly running = new Set<Promise<void>>()
  private started = false
  private stopping = false

  constructor(private readonly options: PgBossQueueOptions) {
    this.pool = new (pgModule().Pool)({
      connectionString: options.connectionString,
      max: 4,
      // Names the schema, so an operator (and a test) can tell this process's job connections apart.
      application_name: `pgboss ${options.schema}`.slice(0, 63),
    })
    this.pool.on('error', (err) => options.onError(err, 'pg-boss', '-'))
    this.boss = new (pgBossModule())({
      db: { executeSql: (text: string, values?: unknown[]) => this.query(text, values) },
      schema: options.schema,
      // Jobs are wake-up calls; the database re-creates any that fail, so pg-boss need not retry them.
      retryLimit: 0,
      // Finished jobs are worth nothing; keep the tables small.
      archiveCompletedAfterSeconds: 60,
      deleteAfterSeconds: 60,
    })
    this.boss.on('error', (err) => options.onError(err, 'pg-boss', '-'))
  }

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler)
  }

  async enqueue(kind: string, subject: string, place: JobPlace = {}): Promise<void> {
    if (!this.started || this.stopping) return
    const turn = place.turn ?? 0
    // pg-boss hands out the highest priority first (then the oldest): an earlier turn is a higher priority.
    // The owner travels with the job, so the process that runs it shares its slots by owner (see takeBatch).
    await this.boss.send(kind, { subject, ...place, turn }, { singletonKey: subject, priority: -turn })
    const worker = this.workerIds.get(kind)
    // Wake this process's worker instead of waiting for its next poll.
    if (worker) this.boss.notifyWorker(worker)
  }

  async start(): Promise<void> {
    await this.boss.start()
    for (const [kind, handler] of this.handlers) {
      const local = new InProcessJobQueue(
        this.options.concurrency,
        this.options.onError,
        this.options.stopTimeoutMs,
        // Held back for the kept slot: fewer than the concurrency, the rest left to the database (takeBatch).
        this.options.concurrency - 1,
      )
      local.handle(kind, handler)
      await local.start()
      this.local.set(kind, local)
      await this.createQueue(kind)
      const id = await this.boss.work<JobData>(
        kind,
        { batchSize: this.options.concurrency, pollingIntervalSeconds: this.options.pollingIntervalSeconds },
        (jobs) => this.track(this.takeBatch(local, kind, jobs)),
      )
      this.workerIds.set(kind, id)
    }
    this.started = true
  }

  /**
   * Hands a fetched batch to the in-process queue; settles once every job of it has started, or waits only
   * for the slot kept for other workspaces (InProcessJobQueue.allStarted).
   */
  private async takeBatch(local: InProcessJobQueue, kind: string, jobs: { data: JobData }[]) {
    // Fetched as the stop began: left undone, not lost (the database still says the work is due).
    if (this.stopping) return
    for (const { data } of jobs) await local.enqueue(kind, data.subject, data)
    await local.allStarted()
  }

  private query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    const running = this.pool.query(text, values)
    this.queries.add(running)
    void running.then(
      () => this.queries.delete(running),
      () => this.queries.delete(running),
    )
    return running
  }

  /**
   * Waits until pg-boss sends no more queries: a fetch in flight when the stop began returns jobs, whose
   * (refused) batch pg-boss then marks complete with a query of its own, in the turn after.
   */
  private async drainQueries(): Promise<void> {
    for (let round = 0; round < 10; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      if (this.queries.size === 0) return
      await Promise.allSettled([...this.queries])
    }
  }

  private track(batch: Promise<void>): Promise<void> {
    this.running.add(batch)
    void batch.finally(() => this.running.delete(batch))
    return batch
  }

  /** Several processes may create the same queue at once; the loser's conflict is harmless. */
  private async createQueue(kind: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (await this.boss.getQueue(kind)) return
      try {
        await this.boss.createQueue(kind, { name: kind, policy: 'short' })
        return
      } catch (err) {
        if (attempt >= 3) throw err
      }
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    // The in-process queues stop first: callbacks waiting for room return, running jobs get the stop
    // timeout, then are abandoned. Meanwhile pg-boss's workers stop fetching (close: false: the pool is ours).
    const local = Promise.all([...this.local.values()].map((queue) => queue.stop()))
    await this.boss.stop({ graceful: true, wait: true, close: false, timeout: this.options.stopTimeoutMs })
    await local
    await settleWithin(this.running, ABANDON_GRACE_MS)
    await this.drainQueries()
    this.started = false
    await this.pool.end()
  }
}

import type PgBoss from 'pg-boss'
import { pgBossModule } from '../store/lazy-modules.js'
import type { JobHandler, JobQueue } from './job-queue.js'

export interface PgBossQueueOptions {
  readonly connectionString: string
  /** PostgreSQL schema for pg-boss's own tables. */
  readonly schema: string
  /** Jobs one process runs at once, per kind. */
  readonly concurrency: number
  /** How often an idle worker asks for jobs (pg-boss allows no less than 0.5 s). */
  readonly pollingIntervalSeconds: number
  readonly onError: (err: unknown, kind: string, subject: string) => void
}

/**
 * Jobs in PostgreSQL through pg-boss, shared by every server process on the database. Queues use the
 * `short` policy keyed by subject: at most one job waits per webhook, however many processes ask. (The
 * `singleton` and `stately` policies block a whole queue on a unique-key conflict in pg-boss 10, issue
 * #535.) That one job is not a lock: the handlers claim their webhook with a lease in the database, so a
 * job that pg-boss hands out twice still does the work once.
 */
export class PgBossJobQueue implements JobQueue {
  readonly kind = 'pg-boss' as const
  private readonly boss: PgBoss
  private readonly handlers = new Map<string, JobHandler>()
  private readonly workerIds = new Map<string, string>()
  private started = false

  constructor(private readonly options: PgBossQueueOptions) {
    this.boss = new (pgBossModule())({
      connectionString: options.connectionString,
      schema: options.schema,
      max: 4,
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

  async enqueue(kind: string, subject: string): Promise<void> {
    if (!this.started) return
    await this.boss.send(kind, { subject }, { singletonKey: subject })
    const worker = this.workerIds.get(kind)
    // Wake this process's worker instead of waiting for its next poll.
    if (worker) this.boss.notifyWorker(worker)
  }

  async start(): Promise<void> {
    await this.boss.start()
    for (const [kind, handler] of this.handlers) {
      await this.createQueue(kind)
      const id = await this.boss.work<{ subject: string }>(
        kind,
        { batchSize: this.options.concurrency, pollingIntervalSeconds: this.options.pollingIntervalSeconds },
        async (jobs) => {
          await Promise.all(
            jobs.map(async (job) => {
              try {
                await handler(job.data.subject)
              } catch (err) {
                this.options.onError(err, kind, job.data.subject)
              }
            }),
          )
        },
      )
      this.workerIds.set(kind, id)
    }
    this.started = true
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
    if (!this.started) return
    this.started = false
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 })
  }
}

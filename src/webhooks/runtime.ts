import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { OutboundSettings, WebhookSettings } from '../config.js'
import type { ConnectionResolver, ConnectionStore } from '../connections/index.js'
import type { SecretBox } from '../crypto/keys.js'
import { InProcessJobQueue, type JobQueue, PgBossJobQueue, Ticker } from '../jobs/index.js'
import type { Db } from '../store/index.js'
import type { WorkspaceStore } from '../workspaces/index.js'
import { Deliverer } from './deliverer.js'
import { DeliveryStore } from './delivery-store.js'
import { WebhookHealth } from './health.js'
import { WebhookSender } from './http-sender.js'
import { NativeWebhooks, type WebhookWarn } from './native.js'
import { NotificationStore } from './notifications.js'
import { Poller } from './poller.js'
import { RecordReader } from './record-reader.js'
import { DELIVER_JOB, POLL_JOB, type RequestWebhookJob, WebhookScheduler } from './scheduler.js'
import { WebhookService } from './service.js'
import { WebhookStore } from './webhook-store.js'

export interface WebhookRuntimeDeps {
  readonly db: Db
  readonly box: SecretBox
  readonly connectionStore: ConnectionStore
  readonly resolver: ConnectionResolver
  readonly workspaces: WorkspaceStore
  readonly settings: WebhookSettings
  readonly outbound: OutboundSettings
  readonly publicUrl: string
  /** For the pg-boss runner: the database and the schema for pg-boss's tables. */
  readonly databaseUrl?: string
  readonly jobSchema: string
  readonly onError: (err: unknown, context: string) => void
  /**
   * What the server log should warn of (a native subscription that may remain at a provider, a delivery
   * given up).
   */
  readonly onWarning?: WebhookWarn
}

/**
 * Webhooks wired together: the API-facing service and store, and the background part (scheduler, job
 * queue, poller, deliverer) that start() runs and stop() winds down, letting running jobs finish.
 */
export class WebhookRuntime {
  readonly store: WebhookStore
  readonly deliveries: DeliveryStore
  readonly notifications: NotificationStore
  readonly service: WebhookService
  readonly native: NativeWebhooks
  readonly jobs: JobQueue
  readonly runner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
  private readonly sender: WebhookSender
  private readonly ticker: Ticker
  private started = false

  constructor(deps: WebhookRuntimeDeps) {
    const { db, settings } = deps
    this.store = new WebhookStore(db, deps.box)
    this.deliveries = new DeliveryStore(db)
    this.notifications = new NotificationStore(db)
    const onJobError = (err: unknown, kind: string, subject: string) =>
      deps.onError(err, `${kind} ${subject}`)
    this.jobs =
      settings.jobRunner === 'pg-boss' && deps.databaseUrl
        ? new PgBossJobQueue({
            connectionString: deps.databaseUrl,
            schema: deps.jobSchema,
            concurrency: settings.concurrency,
            pollingIntervalSeconds: Math.max(0.5, settings.tickMs / 1000),
            stopTimeoutMs: settings.stopTimeoutMs,
            onError: onJobError,
          })
        : new InProcessJobQueue(settings.concurrency, onJobError, settings.stopTimeoutMs)
    const health = new WebhookHealth(db, this.notifications, settings.unhealthyAfter)
    this.sender = new WebhookSender({
      allowAddresses: deps.outbound.allowAddresses,
      timeoutMs: settings.deliveryTimeoutMs,
    })
    const requestDelivery: RequestWebhookJob = (webhook) =>
      this.jobs.enqueue(DELIVER_JOB, webhook.id, { group: webhook.workspace_id })
    const requestPoll: RequestWebhookJob = (webhook) =>
      this.jobs.enqueue(POLL_JOB, webhook.id, { group: webhook.workspace_id })
    const deliverer = new Deliverer(
      db,
      this.store,
      this.deliveries,
      deps.connectionStore,
      deps.workspaces,
      this.sender,
      health,
      { minuteMs: settings.minuteMs, maxAttempts: settings.maxAttempts, leaseMs: settings.leaseMs },
      deps.onWarning,
    )
    const reader = new RecordReader(deps.resolver)
    this.native = new NativeWebhooks(
      db,
      this.store,
      reader,
      health,
      this.notifications,
      deps.publicUrl,
      requestDelivery,
      deps.onWarning,
    )
    const poller = new Poller(
      db,
      this.store,
      reader,
      health,
      this.native,
      {
        minuteMs: settings.minuteMs,
        nativeCheckMinutes: settings.nativeCheckMinutes,
        leaseMs: settings.leaseMs,
        checkDeadlineMs: settings.checkDeadlineMs,
        runner: this.runner,
      },
      requestDelivery,
    )
    this.service = new WebhookService(
      this.store,
      deps.connectionStore,
      deps.resolver,
      this.notifications,
      this.native,
      reader,
      {
        allowAddresses: deps.outbound.allowAddresses,
        nativeCheckMs: settings.nativeCheckMinutes * settings.minuteMs,
        maxPerWorkspace: settings.maxPerWorkspace,
        minuteMs: settings.minuteMs,
      },
      requestPoll,
    )
    // A poll is one unit of work: only abandoning it stops it. A delivery run stops after the delivery in
    // hand once the process is stopping; the rest of its backlog goes to another process.
    this.jobs.handle(POLL_JOB, (id, signals) => poller.poll(id, signals.abandoned))
    this.jobs.handle(DELIVER_JOB, (id, signals) => deliverer.deliver(id, signals))
    const scheduler = new WebhookScheduler(db, this.deliveries, this.jobs)
    this.ticker = new Ticker(
      settings.tickMs,
      () => scheduler.tick(),
      (err) => deps.onError(err, 'webhook scheduler'),
    )
  }

  async start(): Promise<void> {
    await this.jobs.start()
    this.ticker.start()
    this.started = true
  }

  async stop(): Promise<void> {
    if (!this.started) return
    this.started = false
    await this.ticker.stop()
    await this.jobs.stop()
    await this.sender.close()
  }
}

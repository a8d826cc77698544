import { randomBytes } from 'node:crypto'
import type { ConnectionStore } from '../connections/index.js'
import type { JobSignals } from '../jobs/index.js'
import type { Db, WebhookDeliveryTable } from '../store/index.js'
import type { WorkspaceStore } from '../workspaces/index.js'
import type { DeliveryStore } from './delivery-store.js'
import type { WebhookHealth } from './health.js'
import type { SendOutcome, WebhookSender } from './http-sender.js'
import { claimLease, releaseLease, renewLease } from './leases.js'
import type { WebhookWarn } from './native.js'
import { retryDelayMs } from './retry-schedule.js'
import { type DeliveryPageEnvelope, deliveryBodyWriter, signDelivery } from './signature.js'
import { type StoredWebhook, webhookView } from './webhook.js'
import type { WebhookStore } from './webhook-store.js'

/**
 * Pending deliveries read at once per webhook: up to WINDOW_RECORDS records' data in memory (ten pages of
 * the default 100 records, as many as a run held before), between 1 and MAX_WINDOW_PAGES pages. Small pages
 * are read many at a time: each read is a database round trip on the path of every delivery behind it.
 */
const WINDOW_RECORDS = 1000
const MAX_WINDOW_PAGES = 100
const windowOf = (pageMaxLimit: number) =>
  Math.max(1, Math.min(MAX_WINDOW_PAGES, Math.floor(WINDOW_RECORDS / Math.max(1, pageMaxLimit))))

export interface DelivererSettings {
  readonly minuteMs: number
  readonly maxAttempts: number
  readonly leaseMs: number
}

/**
 * Sends a webhook's pending deliveries, oldest first, while holding its delivery lease. A failed attempt is
 * rescheduled on the retry schedule and stops the run: later pages wait behind it, so a receiver never
 * sees INITIAL-COMPLETE before the pages it completes, nor a change before an older one. Every attempt of a
 * delivery sends the same `data`, nonce and delivery id, so a receiver recognises a repeat.
 */
export class Deliverer {
  private readonly secrets = new Map<string, string>()

  constructor(
    private readonly db: Db,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryStore,
    private readonly connections: ConnectionStore,
    private readonly workspaces: WorkspaceStore,
    private readonly sender: WebhookSender,
    private readonly health: WebhookHealth,
    private readonly settings: DelivererSettings,
    private readonly warn: WebhookWarn = () => undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  private iso(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString()
  }

  /** Workspace secrets never change once created, so each process reads and unseals one once. */
  private async secretOf(workspaceId: string): Promise<string | undefined> {
    const known = this.secrets.get(workspaceId)
    if (known !== undefined) return known
    const secret = await this.workspaces.secretOf(workspaceId)
    if (secret !== undefined) this.secrets.set(workspaceId, secret)
    return secret
  }

  /**
   * When the process is stopping, the run ends after the delivery in hand; when it abandons the run, the
   * attempt in flight is cut off without being recorded. Either way the lease is released and the pending
   * deliveries go to another process (at least once: a cut-off attempt may have reached the receiver).
   */
  async deliver(webhookId: string, signals?: JobSignals): Promise<void> {
    const abort = signals?.abandoned
    const token = randomBytes(12).toString('base64url')
    const now = this.iso()
    if (!(await claimLease(this.db, 'delivery', webhookId, token, now, this.iso(this.settings.leaseMs))))
      return
    // The mark of the last accepted delivery, written while the next one is sent (see accepted).
    let lastMark: Promise<MarkOutcome> = Promise.resolve(() => true)
    const lastMarked = async () => (await lastMark)()
    try {
      let run = await this.runContext(webhookId)
      let renewedAt = this.clock()
      const renewalDue = () => this.clock() - renewedAt > this.settings.leaseMs / 3
      while (run && !signals?.stopping.aborted) {
        // Renewing (and re-reading the webhook, which may have been paused or pointed elsewhere) once a
        // third of the lease is used keeps a long run safe without a write per delivery.
        if (renewalDue()) {
          if (!(await renewLease(this.db, 'delivery', webhookId, token, this.iso(this.settings.leaseMs))))
            return
          renewedAt = this.clock()
          run = await this.runContext(webhookId)
          if (!run) return
        }
        // A delivery whose mark is not written yet would be read again as pending.
        if (!(await lastMarked())) return
        // The next pages in order, read together: only this lease holder changes them, and pages added
        // meanwhile come after them. One read per window, not per delivery (a database round trip each).
        const due = await this.deliveries.pending(webhookId, windowOf(run.webhook.page_max_limit))
        if (due.length === 0) return
        // Only a run's first page can be waiting for a retry (a failed attempt ends the run).
        const readAt = this.iso()
        for (const head of due) {
          // A stopping process finishes the delivery it is sending and leaves the rest to the next one.
          if (signals?.stopping.aborted) return
          if (head.next_attempt_at > readAt) return
          const outcome = await this.send(run, head, abort)
          if (outcome.aborted) return
          // Gone means its webhook was deleted while it was being sent: the rest of the window is gone too.
          if (!(await lastMarked())) return
          if (outcome.ok) lastMark = settled(this.accepted(run, head))
          else if (!(await this.failed(run, head, outcome))) return
          if (renewalDue()) break
        }
      }
    } finally {
      try {
        await lastMarked()
      } finally {
        await releaseLease(this.db, 'delivery', webhookId, token)
      }
    }
  }

  /** What every delivery of one run needs, read once. */
  private async runContext(webhookId: string): Promise<RunContext | undefined> {
    const webhook = await this.webhooks.byId(webhookId)
    if (!webhook || webhook.is_paused) return undefined
    const secret = await this.secretOf(webhook.workspace_id)
    const connection = await this.connections.get(webhook.workspace_id, webhook.connection_id)
    if (secret === undefined || !connection) return undefined
    return {
      webhook,
      secret,
      body: deliveryBodyWriter(webhookView(webhook), connection.external_xref),
      needsHealthReset: webhook.delivery_failures > 0 || !webhook.is_healthy,
    }
  }

  /** One attempt of the oldest pending delivery. */
  private send(run: RunContext, head: WebhookDeliveryTable, abort: AbortSignal | undefined) {
    const body = run.body({
      dataJson: head.data,
      nonce: head.nonce,
      sig256: signDelivery(run.secret, head.data, head.nonce),
      type: head.type,
    })
    return this.sender.send(
      run.webhook.hook_url,
      body,
      { 'x-unigate-delivery-id': head.id, 'x-unigate-delivery-attempt': String(head.attempts + 1) },
      abort,
    )
  }

  /**
   * Marks an accepted delivery; false when it is gone (its webhook was deleted). The run does not wait for
   * this write before sending the next delivery, only before it reads the next window, records a failure or
   * ends: a mark is a database round trip (a shared commit, see DeliveryStore), and waiting for it put that
   * round trip between every two deliveries of a webhook. Order and at-least-once are unchanged: a mark
   * lost with the process means its delivery and those after it are sent again, in order, as before.
   */
  private async accepted(run: RunContext, head: WebhookDeliveryTable): Promise<boolean> {
    if (!(await this.deliveries.markDelivered(head.id))) return false
    if (run.needsHealthReset) {
      run.needsHealthReset = false
      await this.health.succeeded(run.webhook, 'dispatch')
    }
    return true
  }

  /**
   * Records a failed attempt; true when it was the last (the delivery is removed and the ones behind it may
   * go). A delivery given up is warned of in the server log, by ids and counts: its records were never
   * received, and the webhook's read position has moved past them.
   */
  private async failed(run: RunContext, head: WebhookDeliveryTable, outcome: SendOutcome): Promise<boolean> {
    const failedAttempts = head.attempts + 1
    const givenUp = failedAttempts >= this.settings.maxAttempts
    const error = outcome.error ?? 'delivery failed'
    if (givenUp) {
      // Gone: its webhook was deleted while it was being sent, and the rest of the window with it.
      if (!(await this.deliveries.giveUp(head.id))) return false
      this.warnGivenUp(run.webhook, head, failedAttempts, outcome)
    } else {
      await this.deliveries.markFailed(head.id, {
        ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        error,
        nextAttemptAt: this.iso(retryDelayMs(failedAttempts, this.settings.minuteMs, outcome.retryAfterMs)),
      })
    }
    await this.health.failed(run.webhook, 'dispatch', error, this.iso())
    run.needsHealthReset = true
    return givenUp
  }

  /**
   * No error text: the sender's can quote the hook_url ("hook_url '…' is not a URL"), whose query may hold
   * the receiver's token; the status, and the webhook's notifications, say enough to look further.
   */
  private warnGivenUp(
    webhook: StoredWebhook,
    head: WebhookDeliveryTable,
    attempts: number,
    outcome: SendOutcome,
  ): void {
    this.warn(
      {
        webhook_id: webhook.id,
        workspace_id: webhook.workspace_id,
        connection_id: webhook.connection_id,
        delivery_id: head.id,
        type: head.type,
        record_count: head.record_count,
        attempts,
        ...(outcome.status !== undefined ? { last_status: outcome.status } : {}),
      },
      `webhook ${webhook.id}: a delivery of ${head.record_count} records was given up after ${attempts} attempts ` +
        'and removed; its records did not reach the receiver',
    )
  }
}

/** A mark's result, read later: its failure is held until then, never an unhandled rejection meanwhile. */
type MarkOutcome = () => boolean

function settled(mark: Promise<boolean>): Promise<MarkOutcome> {
  return mark.then(
    (ok) => () => ok,
    (err: unknown) => () => {
      throw err
    },
  )
}

interface RunContext {
  readonly webhook: StoredWebhook
  readonly secret: string
  /** Writes a delivery body; the webhook and external_xref parts are serialised once a run. */
  readonly body: (page: DeliveryPageEnvelope) => string
  needsHealthReset: boolean
}

import { randomBytes } from 'node:crypto'
import { nestedTooDeep } from '../engine/result-json.js'
import { ProviderError } from '../errors.js'
import { MemoryShortError } from '../outbound/heap-guard.js'
import type { Db } from '../store/index.js'
import {
  changesFor,
  classifyByTimestamps,
  classifyOverlapping,
  type DeliveredRecord,
  diffAgainstFingerprints,
} from './change-detection.js'
import {
  type CheckResult,
  commitCheck,
  pruneRuns,
  recordFailedCheck,
  storedFingerprints,
} from './change-store.js'
import type { WebhookHealth } from './health.js'
import { claimLease, releaseLease, renewLease } from './leases.js'
import { type NativeWebhooks, nativeSupportOf } from './native.js'
import { type DeliveryPage, deliveryPages } from './pages.js'
import { firstCheckLists, readStrategyOf, updatedGteFrom } from './read-strategy.js'
import type { RecordReader } from './record-reader.js'
import type { RequestWebhookJob } from './scheduler.js'
import type { StoredWebhook } from './webhook.js'
import type { WebhookStore } from './webhook-store.js'

export interface PollerSettings {
  readonly minuteMs: number
  /** Minutes between checks that a native webhook's subscription still exists at the provider. */
  readonly nativeCheckMinutes: number
  readonly leaseMs: number
  /** How long one check may read its provider, every page together (UNIGATE_WEBHOOK_CHECK_DEADLINE_MS). */
  readonly checkDeadlineMs: number
  /** Names this process in the run history. */
  readonly runner: string
}

interface CheckPlan {
  readonly pages: DeliveryPage[]
  readonly fingerprints?: CheckResult['fingerprints']
}

/**
 * Polls virtual webhooks. A poll runs only while holding the webhook's poll lease and only when the webhook
 * is due, so however many processes ask, one poll runs per due time. Its changes, fingerprints and the new
 * read position are committed together (change-store.ts); the deliveries then go to the deliverer.
 */
export class Poller {
  constructor(
    private readonly db: Db,
    private readonly webhooks: WebhookStore,
    private readonly reader: RecordReader,
    private readonly health: WebhookHealth,
    private readonly native: NativeWebhooks,
    private readonly settings: PollerSettings,
    private readonly onStored: RequestWebhookJob,
    private readonly clock: () => number = Date.now,
  ) {}

  private iso(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString()
  }

  /**
   * `abort` (the process is stopping) ends the read at its next page without recording a failed check:
   * the lease is released and the webhook stays due, so another process polls it at once.
   */
  async poll(webhookId: string, abort?: AbortSignal): Promise<void> {
    const before = await this.webhooks.byId(webhookId)
    if (!before?.next_check_at) return
    const token = randomBytes(12).toString('base64url')
    const startedAt = this.iso()
    const claimed = await claimLease(
      this.db,
      'poll',
      webhookId,
      token,
      startedAt,
      this.iso(this.settings.leaseMs),
      startedAt,
    )
    if (!claimed) return
    // Read again under the lease: what another process committed just before is now visible.
    const webhook = (await this.webhooks.byId(webhookId))!
    const dueAt = webhook.next_check_at ?? startedAt
    const nextCheckAt = this.nextCheckAfter(webhook, startedAt)
    if (isSubscriptionCheck(webhook)) {
      await this.checkSubscription(webhook, token, startedAt, dueAt, nextCheckAt)
      return
    }
    try {
      const plan = await this.check(webhook, token, startedAt, abort)
      const stored = await commitCheck(this.db, {
        webhookId,
        leaseToken: token,
        pages: plan.pages,
        ...(plan.fingerprints ? { fingerprints: plan.fingerprints } : {}),
        startedAt,
        nextCheckAt: await this.nextCheckAtCommit(webhookId, nextCheckAt, startedAt),
        run: { dueAt, runner: this.settings.runner, finishedAt: this.iso() },
      })
      await this.health.succeeded(webhook, 'read')
      await pruneRuns(this.db, webhookId)
      if (stored > 0) await this.onStored(webhook)
    } catch (err) {
      if (abort?.aborted) {
        await releaseLease(this.db, 'poll', webhookId, token)
        return
      }
      // Records nested past what can be written out (fingerprinted, stored) fail as the API answers them.
      const failure = nestedTooDeep(err) ?? err
      const error = failure instanceof Error ? failure.message : String(failure)
      await recordFailedCheck(this.db, {
        webhookId,
        leaseToken: token,
        startedAt,
        nextCheckAt: await this.nextCheckAtCommit(webhookId, nextCheckAt, startedAt),
        dueAt,
        runner: this.settings.runner,
        finishedAt: this.iso(),
        error,
      })
      // A process short of memory is no fault of the webhook: the check is tried again at the next interval
      // without counting against the webhook's health (nor telling its owner it is unhealthy).
      if (!(err instanceof MemoryShortError)) await this.health.failed(webhook, 'read', error, this.iso())
    }
  }

  /**
   * Virtual webhooks are polled every `interval` minutes; native ones are read once, for their backfill, and
   * their subscription at the provider is checked every `nativeCheckMinutes`.
   */
  private nextCheckAfter(webhook: StoredWebhook, startedAt: string): string | null {
    let minutes = webhook.interval
    if (webhook.webhook_type === 'native') {
      // A provider that offers no way to check (PostHog) is not asked again.
      if (!nativeSupportOf(webhook.integration_type, webhook.object_type)?.subscriptionState) return null
      minutes = this.settings.nativeCheckMinutes
    }
    return new Date(Date.parse(startedAt) + minutes * this.settings.minuteMs).toISOString()
  }

  /**
   * A native webhook's subscription check, committed like a poll that found nothing (so `checked_at` and the
   * run history show it). A provider that cannot answer (429, 5xx, a timeout, the connection gone) is a
   * failed run and does not count against health: the pushes may well be arriving; the next check asks again.
   * Only a re-subscription that fails counts (NativeWebhooks.watch).
   */
  private async checkSubscription(
    webhook: StoredWebhook,
    token: string,
    startedAt: string,
    dueAt: string,
    nextCheckAt: string | null,
  ): Promise<void> {
    try {
      const resolved = await this.reader.resolve(webhook)
      if (!resolved) throw new Error(`connection ${webhook.connection_id} is gone`)
      await this.native.watch(webhook, resolved, () =>
        renewLease(this.db, 'poll', webhook.id, token, this.iso(this.settings.leaseMs)),
      )
      await commitCheck(this.db, {
        webhookId: webhook.id,
        leaseToken: token,
        pages: [],
        startedAt,
        nextCheckAt: await this.nextCheckAtCommit(webhook.id, nextCheckAt, startedAt),
        run: { dueAt, runner: this.settings.runner, finishedAt: this.iso() },
      })
      await pruneRuns(this.db, webhook.id)
    } catch (err) {
      await recordFailedCheck(this.db, {
        webhookId: webhook.id,
        leaseToken: token,
        startedAt,
        nextCheckAt: await this.nextCheckAtCommit(webhook.id, nextCheckAt, startedAt),
        dueAt,
        runner: this.settings.runner,
        finishedAt: this.iso(),
        error: err instanceof ProviderError ? `the provider answered ${err.status}` : 'the check failed',
      })
    }
  }

  /** A trigger that arrived during this poll asks for another one right after it. */
  private async nextCheckAtCommit(
    webhookId: string,
    regular: string | null,
    startedAt: string,
  ): Promise<string | null> {
    const current = await this.webhooks.byId(webhookId)
    if (current?.triggered_at && current.triggered_at > startedAt) return current.triggered_at
    return regular
  }

  private async check(
    webhook: StoredWebhook,
    token: string,
    startedAt: string,
    abort: AbortSignal | undefined,
  ): Promise<CheckPlan> {
    const resolved = await this.reader.resolve(webhook)
    if (!resolved) throw new Error(`connection ${webhook.connection_id} is gone`)
    const strategy = readStrategyOf(webhook, resolved.integration)
    const onPage = () => {
      abort?.throwIfAborted()
      return renewLease(this.db, 'poll', webhook.id, token, this.iso(this.settings.leaseMs))
    }
    const { checkDeadlineMs } = this.settings
    const until = {
      at: Date.parse(startedAt) + checkDeadlineMs,
      setting: 'UNIGATE_WEBHOOK_CHECK_DEADLINE_MS',
      ms: checkDeadlineMs,
    }
    const readAll = (updatedGte?: string) =>
      this.reader.readAll(webhook, resolved, { ...(updatedGte ? { updatedGte } : {}), onPage, until })

    if (!webhook.initial_done) {
      // The first check: a backfill when include_all asked for one, otherwise only a baseline.
      const records = firstCheckLists(webhook, strategy) ? await readAll() : []
      const pages = webhook.include_all ? deliveryPages(records, webhook.page_max_limit, 'initial') : []
      if (strategy !== 'fingerprints') return { pages }
      const diff = await diffAgainstFingerprints(records, new Map())
      return { pages, fingerprints: { upsert: diff.next, remove: [] } }
    }

    if (strategy === 'fingerprints') {
      const previous = await storedFingerprints(this.db, webhook.id)
      const diff = await diffAgainstFingerprints(await readAll(), previous)
      const changed = new Map([...diff.next].filter(([key, fp]) => previous.get(key) !== fp))
      return {
        pages: deliveryPages(changesFor(webhook.event, diff), webhook.page_max_limit, 'VIRTUAL'),
        fingerprints: { upsert: changed, remove: diff.deleted },
      }
    }

    const since = webhook.read_cursor ?? startedAt
    const lag = resolved.integration.objects[webhook.object_type]?.updatedGteLagMs ?? 0
    if (lag > 0) {
      const previous = await storedFingerprints(this.db, webhook.id)
      const records = await readAll(updatedGteFrom(since, lag))
      const split = await classifyOverlapping(records, previous, since, lag)
      return {
        pages: deliveryPages(changesFor(webhook.event, split), webhook.page_max_limit, 'VIRTUAL'),
        fingerprints: { upsert: split.seen, remove: split.gone },
      }
    }
    const records: DeliveredRecord[] = await readAll(since)
    const neverChange = resolved.integration.objects[webhook.object_type]?.recordsNeverChange === true
    const split = classifyByTimestamps(records, since, neverChange)
    return { pages: deliveryPages(changesFor(webhook.event, split), webhook.page_max_limit, 'VIRTUAL') }
  }
}

/** A native webhook past its backfill (or never asked for one) is checked at the provider, not read. */
function isSubscriptionCheck(webhook: StoredWebhook): boolean {
  return webhook.webhook_type === 'native' && !(webhook.include_all && !webhook.initial_done)
}

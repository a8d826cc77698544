import { randomBytes } from 'node:crypto'
import pMap from 'p-map'
import type { ResolvedConnection } from '../connections/index.js'
import { parseFields, planFields, projectRecord } from '../engine/index.js'
import { nestedTooDeep } from '../engine/result-json.js'
import {
  ApiError,
  ConnectionBusyError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnreachableError,
} from '../errors.js'
import { memoryCursors } from '../integrations/cursors.js'
import { RECORD_READS_AT_ONCE } from '../integrations/record-reads.js'
import { integrationOf } from '../integrations/registry.js'
import type {
  HandlerContext,
  NativeCall,
  NativeChangedIds,
  NativeChanges,
  NativeSubscriptionTarget,
  NativeWebhookSupport,
} from '../integrations/types.js'
import { modelOf, permissionFor, type UnifiedRecord, WEBHOOK_PERMISSION } from '../models/index.js'
import { MemoryShortError } from '../outbound/heap-guard.js'
import type { Db } from '../store/index.js'
import { LeaseLostError } from './change-store.js'
import type { WebhookHealth } from './health.js'
import { callTokenSeen, commitNativeDeliveries } from './native-store.js'
import type { NotificationStore } from './notifications.js'
import { deliveryPages } from './pages.js'
import type { RecordReader } from './record-reader.js'
import type { RequestWebhookJob } from './scheduler.js'
import type { StoredWebhook } from './webhook.js'
import type { NativeSubscription, WebhookStore } from './webhook-store.js'

/** Where a provider sends the calls of one native webhook. Outside `/unified`: it is not the Unified.to API. */
export function nativeReceiverPath(webhookId: string): string {
  return `/native-webhooks/${encodeURIComponent(webhookId)}`
}

export function nativeSupportOf(
  integrationType: string,
  objectType: string,
): NativeWebhookSupport | undefined {
  return integrationOf(integrationType)?.objects[objectType]?.nativeWebhooks
}

/**
 * What the connection lacks to watch this webhook's object natively: the read of the object and `webhook`,
 * as at creation (webhooks/service.ts). Checked again at every call and check, since a workspace may narrow
 * a connection's grant while its webhooks live: nothing is then delivered or subscribed again.
 */
function missingGrant(webhook: StoredWebhook, resolved: ResolvedConnection): string | undefined {
  const model = modelOf(webhook.object_type)
  const needed = [model ? permissionFor(model, 'list') : undefined, WEBHOOK_PERMISSION]
  const missing = needed.filter(
    (p): p is string => p !== undefined && !resolved.connection.permissions.includes(p),
  )
  if (missing.length === 0) return undefined
  return `the connection is no longer granted ${missing.join(' and ')}, which this native webhook needs; nothing is delivered until it is`
}

function handlerContext(resolved: ResolvedConnection): HandlerContext {
  return {
    // Each subscription step is bounded like a unified operation (its provider calls and answer bytes).
    client: resolved.client.forOperation(),
    credentials: resolved.connection.credentials,
    settings: resolved.connection.settings,
    connectionId: resolved.connection.id,
    fields: { raw: false, rawNames: [], slow: new Set() },
    rawParams: {},
    // Subscribing reads no list: no cursor is needed beyond this call.
    cursors: memoryCursors(),
  }
}

/**
 * What a check of the subscription found (`unchecked`: the provider offers no way to check; `removed`: the
 * webhook was deleted while it was subscribed again).
 */
export type NativeWatchOutcome = 'unchecked' | 'present' | 'resubscribed' | 'resubscribe-failed' | 'removed'

/** `unavailable`: the changed records could not be read back now; the provider should call again. */
export type NativeReceipt = 'stored' | 'unknown' | 'unauthenticated' | 'unavailable'

/** A provider's call whose body, once something read it, was not JSON. */
export class NativeBodyNotJson extends Error {
  constructor() {
    super('the body is not JSON')
    this.name = 'NativeBodyNotJson'
  }
}

/**
 * A provider's call as received, its body parsed only when first read (then NativeBodyNotJson if it is
 * not JSON). Only the calls of a native webhook that exists get as far as a read, and only after they
 * authenticated, except where the signature is inside the body (Lever): anyone may call the receiver's
 * address, and a body up to the limit is not parsed for a caller who is refused anyway.
 */
export function nativeCallOf(headers: NativeCall['headers'], rawBody: string): NativeCall {
  let parsed: { value: unknown } | undefined
  return {
    headers,
    rawBody,
    get body() {
      if (!parsed) {
        try {
          parsed = { value: rawBody === '' ? undefined : JSON.parse(rawBody) }
        } catch {
          throw new NativeBodyNotJson()
        }
      }
      return parsed.value
    },
  }
}

/** A warning for the server log: fields naming the webhook and provider (never a secret), and a message. */
export type WebhookWarn = (fields: Readonly<Record<string, unknown>>, message: string) => void

function isChangedIds(changes: NativeChanges): changes is NativeChangedIds {
  return !Array.isArray(changes)
}

/**
 * Native webhooks: the subscription at the provider, and the provider's calls turned into deliveries typed
 * NATIVE. A call is acknowledged only after its deliveries are stored, so a provider that retries on
 * failure loses nothing.
 */
export class NativeWebhooks {
  constructor(
    private readonly db: Db,
    private readonly webhooks: WebhookStore,
    private readonly reader: RecordReader,
    private readonly health: WebhookHealth,
    private readonly notifications: NotificationStore,
    private readonly publicUrl: string,
    private readonly onStored: RequestWebhookJob,
    private readonly warn: WebhookWarn = () => undefined,
  ) {}

  /**
   * False when the webhook was removed meanwhile (what was made at the provider is removed again). With
   * `stillHeld` (a subscription check, under the webhook's poll lease), what the provider made is stored only
   * while the lease is still held, renewed after the provider answered: a check that lost it while the
   * provider took its time (another process now checks in its turn) removes what it made and throws
   * LeaseLostError, so the two never both keep a subscription.
   */
  async subscribe(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    stillHeld?: () => Promise<boolean>,
  ): Promise<boolean> {
    const support = nativeSupportOf(webhook.integration_type, webhook.object_type)
    if (!support) throw new Error(`${webhook.integration_type} pushes no ${webhook.object_type} changes`)
    const secret = randomBytes(32).toString('base64url')
    const ctx = handlerContext(resolved)
    const request = {
      event: webhook.event,
      url: `${this.publicUrl}${nativeReceiverPath(webhook.id)}`,
      secret,
      name: `Unigate webhook ${webhook.id} (${webhook.object_type} ${webhook.event})`,
    }
    let made: Awaited<ReturnType<NativeWebhookSupport['subscribe']>>
    try {
      made = await support.subscribe(ctx, request)
    } catch (err) {
      // The provider may have made it all the same: it would call the receiver for ever (answered 404 once
      // the webhook is gone), so what it holds at this webhook's address is removed before failing.
      if (mayHaveSubscribed(err)) {
        await this.removeUnanswered(webhook, resolved, support, request, err, stillHeld)
      }
      throw err
    }
    if (stillHeld && !(await stillHeld())) {
      await support.unsubscribe(ctx, made.externalId).catch(() => undefined)
      throw new LeaseLostError(webhook.id)
    }
    // A provider that signs with keys of its own (BambooHR's privateKey, Lever's signature tokens) is
    // checked with those: the one place a provider-issued secret is kept, sealed with the webhook.
    const stored = await this.webhooks.setNativeSubscription(
      webhook.id,
      { externalId: made.externalId, secret: made.secret ?? secret },
      new Date().toISOString(),
    )
    // Removed while subscribing (a re-subscription racing a DELETE): nothing may stay at the provider.
    if (!stored) await support.unsubscribe(ctx, made.externalId).catch(() => undefined)
    return stored
  }

  /**
   * After a subscribe that got no clear answer: removes every subscription the provider holds at this webhook's
   * receiver address (unique to the webhook), except those of the subscription the webhook already holds (a
   * re-subscription at a check keeps the old one until the new one is made). When the provider offers no list
   * or cannot answer it, or a removal fails, the server log says that a subscription may remain, naming the
   * webhook and the provider and the failure by kind only (a provider's message could echo what was sent).
   * A subscription the provider makes only after this look-up (a request it queued) is not found: see README.
   *
   * At a check (`stillHeld`), only while the check still holds the webhook's lease, renewed before the look-up
   * and before each removal: once it is lost (the subscribe took longer than the lease), another process may be
   * subscribing at the same address, and what it made, not yet stored with the webhook, would be taken for
   * this one's. Renewing fails once anyone else claimed the lease, so what is found while it holds was made
   * by this check or by a process that lost the lease before it was claimed (which removes its own).
   */
  private async removeUnanswered(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    support: NativeWebhookSupport,
    target: NativeSubscriptionTarget,
    subscribeErr: unknown,
    stillHeld?: () => Promise<boolean>,
  ): Promise<void> {
    const mayRemain = (why: string) =>
      this.warn(
        {
          webhook_id: webhook.id,
          integration_type: webhook.integration_type,
          subscribe_failure: subscribeFailure(subscribeErr),
          reason: why,
        },
        `a ${webhook.integration_type} subscription of native webhook ${webhook.id} may remain at the provider, ` +
          `calling ${nativeReceiverPath(webhook.id)}: remove it there (see README, Native webhooks)`,
      )
    if (!support.subscriptionsAt) {
      mayRemain(`${webhook.integration_type} offers no way to list its subscriptions`)
      return
    }
    const lost = 'the check lost the webhook to another process, which may be subscribing at the same address'
    // A renewal that fails to answer counts as lost: nothing is removed without the lease.
    const holds = async () => !stillHeld || (await stillHeld().catch(() => false))
    if (!(await holds())) {
      mayRemain(lost)
      return
    }
    // A fresh operation: the failed subscribe may have spent its own time.
    const ctx = handlerContext(resolved)
    let found: readonly string[]
    try {
      const held = await this.webhooks.nativeSubscriptionOf(webhook.id)
      const kept = new Set(held?.externalId.split(',') ?? [])
      found = (await support.subscriptionsAt(ctx, target)).filter((id) => !kept.has(id))
    } catch (err) {
      mayRemain(`listing its subscriptions failed (${subscribeFailure(err)})`)
      return
    }
    for (const id of found) {
      if (!(await holds())) {
        mayRemain(lost)
        return
      }
      try {
        await support.unsubscribe(ctx, id)
      } catch (err) {
        mayRemain(`removing subscription ${id} failed (${subscribeFailure(err)})`)
      }
    }
  }

  /**
   * The periodic check of a native webhook's subscription (run by the poller, under the webhook's poll lease,
   * so once across processes). `present`: nothing to do. `gone` (an admin removed it, or the provider did,
   * e.g. Pipedrive after 3 days of failed calls): Unigate subscribes again exactly as at creation (a new
   * secret, or the new key the provider issues), removes what is left of the old one (Lever: the other
   * Lever webhooks of the set), and records a WEBHOOK_UNHEALTHY notification naming since when calls may
   * have been missed. A failed re-subscription counts against the webhook's health like a failed read and
   * is tried again at the next check. A provider that cannot answer the check throws: never `gone`.
   */
  async watch(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    /** Renews the caller's lease on the webhook; false when it was lost (another process checks now). */
    stillHeld: () => Promise<boolean>,
  ): Promise<NativeWatchOutcome> {
    const support = nativeSupportOf(webhook.integration_type, webhook.object_type)
    if (!support?.subscriptionState) return 'unchecked'
    const subscription = await this.webhooks.nativeSubscriptionOf(webhook.id)
    const ctx = handlerContext(resolved)
    const present =
      subscription !== undefined &&
      (await support.subscriptionState(ctx, subscription.externalId)) === 'present'
    const ungranted = missingGrant(webhook, resolved)
    if (ungranted) {
      // The provider would go on pushing what the connection may no longer read: its subscription is
      // removed, and made again by a later check once the grant is back (it is then gone).
      if (present) await support.unsubscribe(ctx, subscription.externalId).catch(() => undefined)
      await this.health.failed(webhook, 'read', ungranted, new Date().toISOString())
      return 'resubscribe-failed'
    }
    if (present) return 'present'
    const foundAt = new Date().toISOString()
    const since = await this.webhooks.nativeQuietSince(webhook.id)
    // Subscribing is a write at the provider: only while this check still holds the webhook.
    if (!(await stillHeld())) throw new LeaseLostError(webhook.id)
    try {
      if (!(await this.subscribe(webhook, resolved, stillHeld))) return 'removed'
    } catch (err) {
      if (err instanceof LeaseLostError) throw err
      await this.health.failed(
        webhook,
        'read',
        `its ${webhook.integration_type} subscription is gone and subscribing again failed (${subscribeFailure(err)})`,
        foundAt,
      )
      return 'resubscribe-failed'
    }
    if (subscription) await support.unsubscribe(ctx, subscription.externalId).catch(() => undefined)
    await this.health.succeeded(webhook, 'read')
    await this.notifications.record(
      {
        workspace_id: webhook.workspace_id,
        event: 'WEBHOOK_UNHEALTHY',
        description:
          `webhook ${webhook.id} (${webhook.object_type} ${webhook.event}): its ${webhook.integration_type} ` +
          `subscription was gone at ${foundAt} (removed at the provider) and was made again; changes ` +
          `since ${since ?? webhook.created_at} (the last call received) may have been missed: list ` +
          `${webhook.object_type} with updated_gte=${since ?? webhook.created_at} to catch up`,
        webhook_id: webhook.id,
        connection_id: webhook.connection_id,
        integration_type: webhook.integration_type,
      },
      new Date().toISOString(),
    )
    return 'resubscribed'
  }

  /** Removes this subscription of the webhook at the provider (the one its row held when it was removed). */
  async unsubscribe(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    subscription: NativeSubscription,
  ): Promise<void> {
    const support = nativeSupportOf(webhook.integration_type, webhook.object_type)
    if (!support) return
    await support.unsubscribe(handlerContext(resolved), subscription.externalId)
  }

  async receive(webhookId: string, call: NativeCall): Promise<NativeReceipt> {
    const webhook = await this.webhooks.byId(webhookId)
    const subscription = webhook && (await this.webhooks.nativeSubscriptionOf(webhookId))
    const support = webhook && nativeSupportOf(webhook.integration_type, webhook.object_type)
    const model = webhook && modelOf(webhook.object_type)
    if (webhook?.webhook_type !== 'native' || !subscription || !support || !model) return 'unknown'
    if (!support.authenticate(call, subscription.secret, Date.now())) return 'unauthenticated'
    // Parsed now, before anything is written: a body that is not JSON is refused (NativeBodyNotJson) with
    // nothing recorded of the call.
    void call.body
    const resolved = await this.reader.resolve(webhook)
    if (!resolved) return 'unknown'
    const ungranted = missingGrant(webhook, resolved)
    if (ungranted) {
      // Acknowledged (the provider would call again for ever) and counted against the webhook's health; not
      // recorded as a call received, so the notice after a new subscription counts this time as missed.
      await this.health.failed(webhook, 'read', ungranted, new Date().toISOString())
      return 'stored'
    }
    await this.webhooks.markNativeCall(webhookId, new Date().toISOString())
    const token = support.callToken?.(call)
    // Acknowledged again, so the provider stops sending it; delivered once.
    if (token && (await callTokenSeen(this.db, webhookId, token))) return 'stored'
    try {
      const changes = support.records(call, {
        event: webhook.event,
        credentials: resolved.connection.credentials,
        settings: resolved.connection.settings,
      })
      let records: UnifiedRecord[]
      if (isChangedIds(changes)) {
        const read = await this.readBack(webhook, resolved, changes)
        if (!read) return 'unavailable'
        records = read
      } else {
        const selection = parseFields(webhook.fields, model)
        // Slow fields would need calls back to the provider for each pushed record: a push carries what it carries.
        const plan = planFields(selection, [], false)
        records = changes.map((r) => projectRecord(r, model, selection, plan, []))
      }
      const pages = deliveryPages(records, webhook.page_max_limit, 'NATIVE')
      if (pages.length === 0 && !token) return 'stored'
      const stored = await commitNativeDeliveries(this.db, webhookId, pages, new Date().toISOString(), token)
      if (stored && pages.length > 0) await this.onStored(webhook)
      return 'stored'
    } catch (err) {
      // Records nested past what can be shaped and written out: no retry can fix that, so the call is
      // acknowledged (the provider would send it again for ever), nothing is delivered, and the webhook's
      // health says why, in the words the API answers such data with.
      const tooDeep = nestedTooDeep(err)
      if (!tooDeep) throw err
      await this.health.failed(webhook, 'read', tooDeep.message, new Date().toISOString())
      return 'stored'
    }
  }

  /**
   * The records a call names, read now through the object's `get` (so they are as current as a read, shaped
   * by the webhook's `fields`); one gone since is left out. Ids the call says were removed are delivered as
   * `{ id }` only when the provider no longer has them. Undefined when the provider cannot answer now (the
   * provider should call again); a failure waiting cannot fix (the credentials lack access, the connection
   * was not granted the read) delivers nothing and counts against the webhook's health, so it turns
   * unhealthy with a notification instead of being called again forever.
   */
  private async readBack(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    changed: NativeChangedIds,
  ): Promise<UnifiedRecord[] | undefined> {
    const ids = [...new Set(changed.ids)]
    if (ids.length === 0) return []
    let read: (UnifiedRecord | undefined | typeof HIDDEN)[]
    try {
      // A few at a time: a call may name more records than the connection queues (a bulk import), and
      // started together the rest were 429s, so the call failed as often as the provider sent it.
      read = await pMap(
        ids,
        async (id) => {
          try {
            return await this.reader.readOne(webhook, resolved, id)
          } catch (err) {
            if (changed.forbiddenMeansHidden && isProviderForbidden(err)) return HIDDEN
            throw err
          }
        },
        { concurrency: RECORD_READS_AT_ONCE },
      )
    } catch (err) {
      // Answered by receive, as for pushed records.
      if (nestedTooDeep(err)) throw err
      await this.health.failed(webhook, 'read', failureReason(err), new Date().toISOString())
      return isPermanentReadFailure(err) ? [] : undefined
    }
    await this.health.succeeded(webhook, 'read')
    if (changed.removed) return ids.filter((_, i) => read[i] === undefined).map((id) => ({ id }))
    return read.filter((r): r is UnifiedRecord => r !== undefined && r !== HIDDEN)
  }
}

/** A record the provider would not show these credentials (see NativeChangedIds.forbiddenMeansHidden). */
const HIDDEN = Symbol('hidden from the credentials')

/** The provider itself answered 403 (not Unigate's own permission check, nor a 401 mapped to 403). */
function isProviderForbidden(err: unknown): boolean {
  return err instanceof ApiError && err.statusCode === 403 && err.extra.provider_status === 403
}

/**
 * Read failures that no retry of the call can fix: refused credentials or access (403, also a missing
 * grant), a request the provider rejects (400), an operation the integration lacks (501). A 404 is not a
 * failure: the record is gone.
 */
function isPermanentReadFailure(err: unknown): boolean {
  return err instanceof ApiError && [400, 403, 501].includes(err.statusCode)
}

/**
 * Failures that refuse a request before anything is made at the provider: Unigate's own queue (never sent), an
 * address that never took the request (refused, unknown, refused by the outbound policy).
 */
const NEVER_SENT = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|refused by the outbound address policy)/

/**
 * Whether a failed subscribe may still have made the subscription at the provider: no answer in time, a
 * connection lost after sending, a 5xx (the provider's own failure, or a 2xx answer Unigate could not read as
 * the 502 it is turned into), an answer too large or of an unexpected shape. A 4xx is a refusal: nothing was
 * made. So is a failure before sending (a full queue, Unigate's 503 while short of memory, a refused address,
 * Unigate's own 4xx).
 */
export function mayHaveSubscribed(err: unknown): boolean {
  // Unigate's own refusals before sending: its connection queue, or its 503 while short of memory.
  if (err instanceof ConnectionBusyError || err instanceof MemoryShortError) return false
  if (err instanceof ProviderTimeoutError) return true
  if (err instanceof ProviderUnreachableError) return !NEVER_SENT.test(err.reason)
  if (err instanceof ProviderError) return err.status >= 500
  if (err instanceof ApiError) return err.statusCode >= 500
  return true
}

/** A failed subscription by status only: a provider's message could echo what was sent. */
function subscribeFailure(err: unknown): string {
  if (err instanceof ProviderError) return `the provider answered ${err.status}`
  if (err instanceof ProviderTimeoutError) return `the provider did not answer within ${err.timeoutMs} ms`
  return err instanceof ApiError ? err.message : 'the provider could not be reached'
}

/** The API's own message (it names no secret); anything else only by kind. */
function failureReason(err: unknown): string {
  return err instanceof ApiError ? err.message : 'the provider could not be read'
}

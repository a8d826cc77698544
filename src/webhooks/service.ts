import type { ConnectionResolver, ConnectionStore, ResolvedConnection } from '../connections/index.js'
import { newId } from '../crypto/ids.js'
import { apiErrorFromProvider, parseFields } from '../engine/index.js'
import {
  ApiError,
  badRequest,
  listedNames,
  notFound,
  notImplemented,
  WebhooksNotPermitted,
} from '../errors.js'
import { integrationOf } from '../integrations/registry.js'
import { webhookKinds } from '../integrations/webhook-kinds.js'
import { MODELS, modelOf, permissionFor, WEBHOOK_PERMISSION } from '../models/index.js'
import { type AllowedAddress, outboundUrlProblem } from '../outbound/index.js'
import type { WebhookEvent } from './change-detection.js'
import { type NativeWebhooks, nativeSupportOf } from './native.js'
import type { NotificationStore } from './notifications.js'
import { firstCheckLists, readStrategyOf, updatedGteFrom } from './read-strategy.js'
import type { RecordReader, WebhookReads } from './record-reader.js'
import type { RequestWebhookJob } from './scheduler.js'
import type { StoredWebhook, WebhookType } from './webhook.js'
import type { NativeSubscription, WebhookChanges, WebhookStore } from './webhook-store.js'

/** The SDK's `Webhook` as a caller sends it; read-only fields are accepted and ignored (sdk-contract R13). */
export interface WebhookInput {
  readonly connection_id?: string
  readonly object_type?: string
  readonly event?: WebhookEvent
  readonly hook_url?: string
  readonly interval?: number
  readonly page_max_limit?: number
  readonly fields?: string
  readonly filters?: Readonly<Record<string, string>>
  readonly webhook_type?: WebhookType
  readonly is_paused?: boolean
  readonly db_type?: string
  readonly db_url?: string
}

/** Unified.to's default check interval for virtual webhooks is an hour. */
export const DEFAULT_INTERVAL_MINUTES = 60
export const DEFAULT_PAGE_MAX_LIMIT = 100

export interface WebhookServiceSettings {
  readonly allowAddresses: readonly AllowedAddress[]
  /** When a new native webhook's subscription is first checked at the provider. */
  readonly nativeCheckMs: number
  /** Webhooks one workspace may hold (UNIGATE_WEBHOOK_MAX_PER_WORKSPACE). */
  readonly maxPerWorkspace: number
  /** The length of a minute of `interval` (UNIGATE_WEBHOOK_MINUTE_MS), as the poller counts it. */
  readonly minuteMs: number
}

/** What of a webhook decides which lists its checks make, and how. */
type CheckedReads = WebhookReads &
  Pick<StoredWebhook, 'event' | 'interval' | 'webhook_type' | 'include_all' | 'initial_done'>

/** Creating, changing, triggering and removing webhooks: everything the API asks of them. */
export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly connections: ConnectionStore,
    private readonly resolver: ConnectionResolver,
    private readonly notifications: NotificationStore,
    private readonly native: NativeWebhooks,
    private readonly reader: RecordReader,
    private readonly settings: WebhookServiceSettings,
    /** Wakes the poller for a webhook (its first check, or a trigger). */
    private readonly requestPoll: RequestWebhookJob,
  ) {}

  async create(workspaceId: string, input: WebhookInput, includeAll: boolean): Promise<StoredWebhook> {
    if (input.db_type !== undefined || input.db_url !== undefined) {
      throw badRequest('db_type/db_url: delivery into a database is not offered by Unigate; give a hook_url')
    }
    const connectionId = input.connection_id!
    const connection = await this.connections.get(workspaceId, connectionId)
    const resolved = connection && (await this.resolver.resolve(workspaceId, connectionId))
    if (!resolved) throw notFound(`connection ${connectionId} not found`)
    const objectType = input.object_type!
    const event = input.event!
    const filtered = Object.keys(input.filters ?? {}).length > 0
    const webhookType = this.checkObject(resolved, objectType, event, input.webhook_type, filtered)
    const hookUrl = this.checkHookUrl(input.hook_url)
    const model = modelOf(objectType)!
    if (input.fields) parseFields(input.fields, model)
    const filters = input.filters ?? {}
    this.checkFilterNames(objectType, filters)
    const interval = input.interval ?? DEFAULT_INTERVAL_MINUTES
    await this.checkReads(
      {
        object_type: objectType,
        event,
        filters,
        ...(input.fields ? { fields: input.fields } : {}),
        interval,
        webhook_type: webhookType,
        include_all: includeAll,
        initial_done: false,
      },
      resolved,
    )
    await this.checkRoomFor(workspaceId)
    const now = new Date().toISOString()
    // A virtual webhook checks at once (its baseline or backfill); a native one only to backfill, otherwise
    // its subscription is first checked at the provider one check interval from now.
    const checkNow = webhookType === 'virtual' || includeAll
    const watched = nativeSupportOf(resolved.integration.type, objectType)?.subscriptionState !== undefined
    const firstCheck = checkNow
      ? now
      : watched
        ? new Date(Date.parse(now) + this.settings.nativeCheckMs).toISOString()
        : undefined
    // A native webhook is stored with no check due and made due once its subscription is made: due before,
    // another process's poller could claim its backfill and deliver records for a webhook that a refused
    // subscription then removes.
    const dueWhenStored = webhookType === 'virtual' ? firstCheck : undefined
    const stored = await this.store.insert({
      id: newId('wh'),
      workspace_id: workspaceId,
      connection_id: connectionId,
      integration_type: resolved.integration.type,
      object_type: objectType,
      event,
      hook_url: hookUrl,
      interval,
      page_max_limit: input.page_max_limit ?? DEFAULT_PAGE_MAX_LIMIT,
      ...(input.fields ? { fields: input.fields } : {}),
      filters,
      webhook_type: webhookType,
      environment: resolved.connection.environment,
      include_all: includeAll,
      is_paused: input.is_paused ?? false,
      ...(dueWhenStored ? { next_check_at: dueWhenStored } : {}),
      created_at: now,
    })
    let webhook = stored
    if (webhookType === 'native') {
      try {
        await this.native.subscribe(stored, resolved)
      } catch (err) {
        await this.store.remove(workspaceId, stored.id)
        if (
          input.webhook_type === undefined &&
          this.pollsInstead(err, resolved, objectType, event, filtered)
        ) {
          return this.create(workspaceId, { ...input, webhook_type: 'virtual' }, includeAll)
        }
        throw apiErrorFromProvider(err, resolved.integration, `subscribe to ${objectType} changes`) ?? err
      }
      if (firstCheck) {
        await this.store.scheduleFirstCheck(stored.id, firstCheck)
        webhook = { ...stored, next_check_at: firstCheck }
      }
    }
    await this.notifications.record(
      {
        workspace_id: workspaceId,
        event: 'WEBHOOK_CREATED',
        description: `webhook ${webhook.id} created: ${objectType} ${event} (${webhookType}) to ${hookUrl}`,
        webhook_id: webhook.id,
        connection_id: connectionId,
        integration_type: webhook.integration_type,
      },
      now,
    )
    if (checkNow) await this.requestPoll(webhook)
    return webhook
  }

  /**
   * A 400 when the workspace already holds its most webhooks. Every process's scheduler looks over the due
   * webhooks of every workspace at each tick, synchronously on SQLite: one key holder's 60,000 webhooks due
   * every minute held the event loop, every tenant's requests with it, for about 300 ms of each second, and
   * more webhooks for longer. Webhooks created at the same moment may pass the bound by as many.
   */
  private async checkRoomFor(workspaceId: string): Promise<void> {
    const most = this.settings.maxPerWorkspace
    if ((await this.store.countInWorkspace(workspaceId)) < most) return
    throw badRequest(
      `this workspace holds ${most} webhooks, the most it may (UNIGATE_WEBHOOK_MAX_PER_WORKSPACE); ` +
        'remove one before creating another',
    )
  }

  /**
   * PUT and PATCH both merge (the SDK sends the whole webhook on PATCH too). What a webhook watches
   * (connection, object, event, type) is fixed; changing it means a new webhook with its own read position.
   */
  async update(workspaceId: string, id: string, input: WebhookInput): Promise<StoredWebhook> {
    const current = await this.store.get(workspaceId, id)
    if (!current) throw notFound(`webhook ${id} not found`)
    for (const key of ['connection_id', 'object_type', 'event', 'webhook_type'] as const) {
      const given = input[key]
      if (given !== undefined && given !== current[key]) {
        throw badRequest(`${key} cannot change (it is '${current[key]}'); create a new webhook instead`)
      }
    }
    const changes: WebhookChanges = {}
    if (input.hook_url !== undefined) changes.hook_url = this.checkHookUrl(input.hook_url)
    if (input.interval !== undefined) changes.interval = input.interval
    if (input.page_max_limit !== undefined) changes.page_max_limit = input.page_max_limit
    if (input.fields !== undefined) {
      if (input.fields) parseFields(input.fields, modelOf(current.object_type)!)
      changes.fields = input.fields
    }
    if (input.filters !== undefined) {
      if (current.webhook_type === 'native' && Object.keys(input.filters).length > 0) {
        throw this.nativeCannotFilter(current.integration_type, current.object_type)
      }
      this.checkFilterNames(current.object_type, input.filters)
      changes.filters = input.filters
    }
    // What the checks list changes with the filters and the interval: those lists are checked again, as the
    // webhook will make them. Other changes leave them be, so a webhook whose lists a provider refuses since
    // (see checkReads) can still be paused, pointed elsewhere or removed.
    if (changes.filters !== undefined || changes.interval !== undefined) {
      const resolved = await this.resolver.resolve(workspaceId, current.connection_id)
      if (!resolved) throw notFound(`connection ${current.connection_id} not found`)
      await this.checkReads({ ...current, ...changes }, resolved)
    }
    if (input.is_paused !== undefined) changes.is_paused = input.is_paused
    await this.store.update(workspaceId, id, changes, new Date().toISOString())
    return (await this.store.get(workspaceId, id))!
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const webhook = await this.store.get(workspaceId, id)
    if (!webhook) throw notFound(`webhook ${id} not found`)
    const resolved =
      webhook.webhook_type === 'native'
        ? await this.resolver.resolve(webhook.workspace_id, webhook.connection_id)
        : undefined
    // Removed first, taking the subscription it holds at that moment: a subscription check racing this
    // (re-subscribing) then either stored its new one before (taken here) or removes it itself.
    const subscription = await this.store.take(workspaceId, id)
    if (subscription === undefined) throw notFound(`webhook ${id} not found`)
    if (subscription && resolved) await this.unsubscribeNative(webhook, resolved, subscription)
    await this.notifications.record(
      {
        workspace_id: workspaceId,
        event: 'WEBHOOK_DELETED',
        description: `webhook ${id} removed: ${webhook.object_type} ${webhook.event}`,
        webhook_id: id,
        connection_id: webhook.connection_id,
        integration_type: webhook.integration_type,
      },
      new Date().toISOString(),
    )
  }

  /** Called before a connection is removed: its webhooks go with it, unsubscribed at the provider first. */
  async removeForConnection(workspaceId: string, connectionId: string): Promise<void> {
    for (const id of await this.store.idsOfConnection(workspaceId, connectionId)) {
      await this.remove(workspaceId, id)
    }
  }

  /**
   * Runs a webhook's check now ("for testing purposes" in Unified.to's words): a virtual webhook's poll, a
   * native webhook's backfill when one is pending, else the check that its subscription still exists at the
   * provider (made again when it is gone).
   */
  async trigger(workspaceId: string, id: string): Promise<void> {
    const webhook = await this.store.get(workspaceId, id)
    if (!webhook) throw notFound(`webhook ${id} not found`)
    if (webhook.webhook_type === 'native' && !webhook.next_check_at) {
      throw badRequest(
        `webhook ${id} is native: the provider pushes its changes and offers no way to check its subscription, there is nothing to check`,
      )
    }
    await this.store.markTriggered(id, new Date().toISOString())
    await this.requestPoll(webhook)
  }

  /**
   * A provider that cannot be reached or refuses must not keep a webhook (or its connection) from being
   * removed: the subscription is then left at the provider, and its calls are refused as unknown.
   */
  private async unsubscribeNative(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    subscription: NativeSubscription,
  ): Promise<void> {
    await this.native.unsubscribe(webhook, resolved, subscription).catch(() => undefined)
  }

  private checkHookUrl(url: string | undefined): string {
    if (!url) throw badRequest('hook_url is required: the address Unigate POSTs the changes to')
    const problem = outboundUrlProblem('hook_url', url, this.settings.allowAddresses)
    if (problem) throw badRequest(problem)
    return url
  }

  /**
   * Decides native or virtual, and refuses what the integration cannot watch, saying why. Native needs the
   * `webhook` permission (it subscribes, so writes, at the provider): without it a webhook is virtual where
   * the object can be polled, and a 403 naming the permission where only a native one could watch it.
   * Filters are list filters, so only polling applies them: a webhook with filters is virtual unless native
   * is asked, which is then a 400 naming `filters` (a provider pushes every change of the object).
   */
  private checkObject(
    resolved: ResolvedConnection,
    objectType: string,
    event: WebhookEvent,
    requested: WebhookType | undefined,
    filtered: boolean,
  ): WebhookType {
    const model = modelOf(objectType)
    if (!model) {
      throw badRequest(
        `object_type: '${objectType}' is not served here; use one of ${MODELS.map((m) => m.objectType).join(', ')}`,
      )
    }
    const { integration, connection } = resolved
    const handlers = integration.objects[objectType]
    const native = nativeSupportOf(integration.type, objectType)
    if (typeof handlers?.list !== 'function' && !native) {
      throw notImplemented(`${integration.name} cannot list ${objectType}, so no webhook can watch it`)
    }
    if (event === 'updated' && handlers?.recordsNeverChange) {
      throw badRequest(
        `${integration.name} never changes ${objectType} records once it lists them, so no updated event can happen; subscribe to created`,
      )
    }
    const needed = permissionFor(model, 'list')
    if (!connection.permissions.includes(needed)) {
      throw new ApiError(
        403,
        `this connection was not granted ${needed}; update its permissions or re-authorize it`,
      )
    }
    const kinds = webhookKinds(handlers, event)
    const nativeOk = kinds.includes('native')
    const nativeGranted = connection.permissions.includes(WEBHOOK_PERMISSION)
    const virtualOk = kinds.includes('virtual')
    if (requested === 'native' && !nativeOk) {
      throw badRequest(
        `${integration.name} cannot push ${objectType} ${event} changes; leave webhook_type out or use virtual`,
      )
    }
    if (requested === 'native' && filtered) throw this.nativeCannotFilter(integration.name, objectType)
    if (requested === 'native' && !nativeGranted) throw this.webhookNotGranted(virtualOk)
    if (requested === 'virtual' && !virtualOk)
      throw this.cannotWatch(integration.name, objectType, !!handlers?.list)
    if (requested) return requested
    if (nativeOk && nativeGranted && !filtered) return 'native'
    if (virtualOk) return 'virtual'
    if (nativeOk && filtered) throw this.nativeCannotFilter(integration.name, objectType)
    if (nativeOk) throw this.webhookNotGranted(false)
    throw this.cannotWatch(integration.name, objectType, !!handlers?.list)
  }

  /**
   * Whether a webhook whose type was left out polls after all, the provider having refused these credentials
   * its webhooks API (WebhooksNotPermitted, as the integration recognises that refusal: a Pipedrive OAuth app
   * without the webhooks:full scope), while they may read what polling reads. Leaving the type out asks for
   * changes however Unigate can get them, as it does for a connection not granted `webhook`; an explicit
   * `native` still answers the provider's refusal. Any other 403 (a firewall, a suspended account) is
   * answered as it came: polling would not be the answer to it.
   */
  private pollsInstead(
    err: unknown,
    resolved: ResolvedConnection,
    objectType: string,
    event: WebhookEvent,
    filtered: boolean,
  ): boolean {
    if (!(err instanceof WebhooksNotPermitted)) return false
    try {
      return this.checkObject(resolved, objectType, event, 'virtual', filtered) === 'virtual'
    } catch {
      return false
    }
  }

  private webhookNotGranted(canPoll: boolean): ApiError {
    return new ApiError(
      403,
      `this connection was not granted ${WEBHOOK_PERMISSION}, which native webhooks need; update its permissions or re-authorize it` +
        (canPoll ? ', or leave webhook_type out (or use virtual) to poll instead' : ''),
    )
  }

  private nativeCannotFilter(integration: string, objectType: string): ApiError {
    const name = integrationOf(integration)?.name ?? integration
    return badRequest(
      `filters: native webhooks of ${name} cannot filter (the provider pushes every ${objectType} change); ` +
        'leave webhook_type out (or use virtual) to poll with these filters, or leave filters out',
    )
  }

  private cannotWatch(name: string, objectType: string, canList: boolean): ApiError {
    if (!canList) return notImplemented(`${name} cannot list ${objectType}, so no webhook can watch it`)
    return badRequest(
      `${name} cannot detect deleted ${objectType} records (its listing is not the complete set); subscribe to created or updated`,
    )
  }

  /** Filters are list filters of the object: a name the object's lists do not take is a 400 naming them. */
  private checkFilterNames(objectType: string, filters: Readonly<Record<string, string>>): void {
    const model = modelOf(objectType)!
    const unknown = Object.keys(filters).filter((k) => !(k in model.filters))
    if (unknown.length > 0) {
      const allowed = Object.keys(model.filters)
      throw badRequest(
        `filters: ${listedNames(unknown)} not a filter of ${objectType}; allowed: ${allowed.join(', ') || 'none'}`,
      )
    }
  }

  /**
   * Checks every list the webhook's checks will make as the engine checks any list before reading (the
   * values, what the integration can apply and needs, the provider's own rules: engine `checkList`), and
   * answers what that list would: a webhook no check could serve is refused instead of failing every check.
   * They are the lists the poller makes: the first check's (a backfill, or a baseline's fingerprints), and,
   * by `updated_gte`, a later check's, from the start of the previous one, `interval` minutes before, less the
   * provider's listing lag; that one is checked right after a check too, so a refusal only `interval` causes
   * names `interval`. Rules that depend on the time are checked as of now (README, "Webhooks").
   */
  private async checkReads(webhook: CheckedReads, resolved: ResolvedConnection): Promise<void> {
    const strategy = readStrategyOf(webhook, resolved.integration)
    // A native webhook lists only for its backfill; its changes are pushed.
    const native = webhook.webhook_type === 'native'
    const firstLists = native ? webhook.include_all : firstCheckLists(webhook, strategy)
    if (firstLists && !webhook.initial_done) await this.reader.checkRead(webhook, resolved)
    if (native || strategy !== 'updated_gte') return
    const lag = resolved.integration.objects[webhook.object_type]?.updatedGteLagMs ?? 0
    const now = Date.now()
    await this.reader.checkRead(webhook, resolved, updatedGteFrom(new Date(now).toISOString(), lag))
    const previous = new Date(now - webhook.interval * this.settings.minuteMs).toISOString()
    try {
      await this.reader.checkRead(webhook, resolved, updatedGteFrom(previous, lag))
    } catch (err) {
      if (!(err instanceof ApiError && err.statusCode === 400)) throw err
      throw badRequest(
        `interval: each check lists what changed since the previous check, ${webhook.interval} minutes ` +
          `before it, and ${resolved.integration.name} refuses that list: ${err.message}`,
      )
    }
  }
}

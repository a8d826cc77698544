import type { SecretBox } from '../crypto/keys.js'
import { type Db, paged, type WebhookTable } from '../store/index.js'
import { oneOfWorkspace, removeFromWorkspace } from '../store/workspace-rows.js'
import type { WebhookEvent } from './change-detection.js'
import type { StoredWebhook, WebhookType } from './webhook.js'

export interface WebhookListFilter {
  readonly workspaceId: string
  readonly connectionId?: string
  readonly createdLte?: string
  readonly environment?: string
  readonly integrationType?: string
  readonly isHealthy?: boolean
  readonly objectType?: string
  readonly updatedGte?: string
  readonly sort: 'created_at' | 'updated_at'
  readonly order: 'asc' | 'desc'
  readonly limit: number
  readonly offset: number
}

/** A webhook to insert: what its creator decides; the store starts the rest (health, cursors, counters). */
export type NewWebhook = Pick<
  StoredWebhook,
  | 'id'
  | 'workspace_id'
  | 'connection_id'
  | 'integration_type'
  | 'object_type'
  | 'event'
  | 'hook_url'
  | 'interval'
  | 'page_max_limit'
  | 'fields'
  | 'filters'
  | 'webhook_type'
  | 'environment'
  | 'include_all'
  | 'is_paused'
  | 'next_check_at'
  | 'created_at'
>

export type WebhookChanges = {
  -readonly [K in
    | 'hook_url'
    | 'interval'
    | 'page_max_limit'
    | 'fields'
    | 'filters'
    | 'is_paused']?: StoredWebhook[K]
}

/** The provider side of a native webhook: kept sealed, since the secret authenticates the provider's calls. */
export interface NativeSubscription {
  /** The provider's id for the subscription (to remove it). */
  readonly externalId: string
  /** Shared with the provider; its calls must present it. */
  readonly secret: string
}

export function fromWebhookRow(row: WebhookTable): StoredWebhook {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    connection_id: row.connection_id,
    integration_type: row.integration_type,
    object_type: row.object_type,
    event: row.event as WebhookEvent,
    hook_url: row.hook_url,
    interval: row.interval,
    page_max_limit: row.page_max_limit,
    ...(row.fields ? { fields: row.fields } : {}),
    filters: JSON.parse(row.filters) as Record<string, string>,
    webhook_type: row.webhook_type as WebhookType,
    environment: row.environment,
    include_all: row.include_all === 1,
    initial_done: row.initial_done === 1,
    is_healthy: row.is_healthy === 1,
    is_paused: row.is_paused === 1,
    ...(row.read_cursor ? { read_cursor: row.read_cursor } : {}),
    ...(row.checked_at ? { checked_at: row.checked_at } : {}),
    ...(row.next_check_at ? { next_check_at: row.next_check_at } : {}),
    ...(row.triggered_at ? { triggered_at: row.triggered_at } : {}),
    delivery_failures: row.delivery_failures,
    read_failures: row.read_failures,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** Webhook subscriptions: what the API reads and writes. Polling and delivery state live in their modules. */
export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  async insert(w: NewWebhook): Promise<StoredWebhook> {
    await this.db
      .insertInto('webhooks')
      .values({
        id: w.id,
        workspace_id: w.workspace_id,
        connection_id: w.connection_id,
        integration_type: w.integration_type,
        object_type: w.object_type,
        event: w.event,
        hook_url: w.hook_url,
        interval: w.interval,
        page_max_limit: w.page_max_limit,
        fields: w.fields ?? null,
        filters: JSON.stringify(w.filters),
        webhook_type: w.webhook_type,
        environment: w.environment,
        include_all: w.include_all ? 1 : 0,
        initial_done: 0,
        is_healthy: 1,
        is_paused: w.is_paused ? 1 : 0,
        read_cursor: null,
        checked_at: null,
        next_check_at: w.next_check_at ?? null,
        triggered_at: null,
        poll_lease: null,
        poll_lease_until: null,
        delivery_lease: null,
        delivery_lease_until: null,
        delivery_failures: 0,
        read_failures: 0,
        native_sealed: null,
        native_call_at: null,
        native_subscribed_at: null,
        created_at: w.created_at,
        updated_at: w.created_at,
      })
      .execute()
    return (await this.get(w.workspace_id, w.id))!
  }

  /** How many webhooks the workspace holds (webhooks_workspace_idx), for its bound. */
  async countInWorkspace(workspaceId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow()
    return Number(row.count)
  }

  /** A webhook of this workspace; another workspace's webhook is simply not found. */
  async get(workspaceId: string, id: string): Promise<StoredWebhook | undefined> {
    const select = this.db.selectFrom('webhooks').selectAll()
    const row = await oneOfWorkspace(select, workspaceId, id).executeTakeFirst()
    return row && fromWebhookRow(row)
  }

  /** For the background jobs, which work across workspaces. */
  async byId(id: string): Promise<StoredWebhook | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
    return row && fromWebhookRow(row)
  }

  async list(f: WebhookListFilter): Promise<StoredWebhook[]> {
    let q = this.db.selectFrom('webhooks').selectAll().where('workspace_id', '=', f.workspaceId)
    if (f.connectionId) q = q.where('connection_id', '=', f.connectionId)
    if (f.createdLte) q = q.where('created_at', '<=', f.createdLte)
    if (f.environment) q = q.where('environment', '=', f.environment)
    if (f.integrationType) q = q.where('integration_type', '=', f.integrationType)
    if (f.isHealthy !== undefined) q = q.where('is_healthy', '=', f.isHealthy ? 1 : 0)
    if (f.objectType) q = q.where('object_type', '=', f.objectType)
    if (f.updatedGte) q = q.where('updated_at', '>=', f.updatedGte)
    const rows = await paged(q, f).execute()
    return rows.map(fromWebhookRow)
  }

  async idsOfConnection(workspaceId: string, connectionId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('connection_id', '=', connectionId)
      .execute()
    return rows.map((r) => r.id)
  }

  async update(workspaceId: string, id: string, changes: WebhookChanges, updatedAt: string): Promise<void> {
    const values: Partial<WebhookTable> = { updated_at: updatedAt }
    if (changes.hook_url !== undefined) values.hook_url = changes.hook_url
    if (changes.interval !== undefined) values.interval = changes.interval
    if (changes.page_max_limit !== undefined) values.page_max_limit = changes.page_max_limit
    if ('fields' in changes) values.fields = changes.fields || null
    if (changes.filters !== undefined) values.filters = JSON.stringify(changes.filters)
    if (changes.is_paused !== undefined) values.is_paused = changes.is_paused ? 1 : 0
    await oneOfWorkspace(this.db.updateTable('webhooks').set(values), workspaceId, id).execute()
  }

  async remove(workspaceId: string, id: string): Promise<boolean> {
    return removeFromWorkspace(this.db.deleteFrom('webhooks'), workspaceId, id)
  }

  /**
   * Removes the webhook and answers, in the same statement, the native subscription it held at that moment
   * (undefined when there was no such webhook, `null` when it held none). A check subscribing again at the
   * same time either stored its new subscription before (answered here) or finds the webhook gone and
   * removes what it made (NativeWebhooks.subscribe): the provider is left with neither.
   */
  async take(workspaceId: string, id: string): Promise<NativeSubscription | null | undefined> {
    const row = await oneOfWorkspace(this.db.deleteFrom('webhooks'), workspaceId, id)
      .returning('native_sealed')
      .executeTakeFirst()
    if (!row) return undefined
    return row.native_sealed ? this.box.openJson<NativeSubscription>(row.native_sealed) : null
  }

  /** Makes a webhook stored with no check due (a native one, until its subscription is made) due at `at`. */
  async scheduleFirstCheck(id: string, at: string): Promise<void> {
    await this.db.updateTable('webhooks').set({ next_check_at: at }).where('id', '=', id).execute()
  }

  /** Asks for a poll now (the trigger endpoint): due at once, and the next regular check still follows. */
  async markTriggered(id: string, now: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ triggered_at: now, next_check_at: now })
      .where('id', '=', id)
      .execute()
  }

  /** False when the webhook is gone (removed meanwhile). */
  async setNativeSubscription(id: string, subscription: NativeSubscription, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('webhooks')
      .set({ native_sealed: this.box.sealJson(subscription), native_subscribed_at: now })
      .where('id', '=', id)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** Remembers an authenticated call of the provider (at most one write a minute per webhook). */
  async markNativeCall(id: string, now: string): Promise<void> {
    const minuteAgo = new Date(Date.parse(now) - 60_000).toISOString()
    await this.db
      .updateTable('webhooks')
      .set({ native_call_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('native_call_at', 'is', null), eb('native_call_at', '<', minuteAgo)]))
      .execute()
  }

  /**
   * Since when a native webhook may have missed calls once its subscription is found gone: its last
   * authenticated call, or its last subscription when no call came after it.
   */
  async nativeQuietSince(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(['native_call_at', 'native_subscribed_at', 'created_at'])
      .where('id', '=', id)
      .executeTakeFirst()
    if (!row) return undefined
    const times = [row.native_call_at, row.native_subscribed_at ?? row.created_at].filter(
      (t): t is string => t !== null,
    )
    return times.sort().at(-1)
  }

  async nativeSubscriptionOf(id: string): Promise<NativeSubscription | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select('native_sealed')
      .where('id', '=', id)
      .executeTakeFirst()
    return row?.native_sealed ? this.box.openJson<NativeSubscription>(row.native_sealed) : undefined
  }

  /** Start times of the most recent polls, newest first (the `runs` of the SDK's Webhook). */
  async recentRuns(id: string, limit = 10): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_runs')
      .select('started_at')
      .where('webhook_id', '=', id)
      .orderBy('started_at', 'desc')
      .limit(limit)
      .execute()
    return rows.map((r) => r.started_at)
  }
}

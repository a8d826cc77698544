import { newId } from '../crypto/ids.js'
import { type Db, type NotificationTable, paged } from '../store/index.js'

/** Workspace events from the SDK's Notification enum that webhooks emit. */
export type WebhookNotificationEvent = 'WEBHOOK_CREATED' | 'WEBHOOK_DELETED' | 'WEBHOOK_UNHEALTHY'

export interface NewNotification {
  readonly workspace_id: string
  readonly event: WebhookNotificationEvent
  readonly description: string
  readonly webhook_id?: string
  readonly connection_id?: string
  readonly integration_type?: string
}

export interface NotificationListFilter {
  readonly workspaceId: string
  readonly updatedGte?: string
  readonly sort: 'created_at' | 'updated_at'
  readonly order: 'asc' | 'desc'
  readonly limit: number
  readonly offset: number
}

/** The SDK's `Notification`: all fields optional, none null. */
export function notificationView(n: NotificationTable) {
  return {
    id: n.id,
    workspace_id: n.workspace_id,
    event: n.event,
    description: n.description,
    ...(n.webhook_id ? { webhook_id: n.webhook_id } : {}),
    ...(n.connection_id ? { connection_id: n.connection_id } : {}),
    ...(n.integration_type ? { integration_type: n.integration_type } : {}),
    created_at: n.created_at,
    updated_at: n.updated_at,
  }
}

/** Workspace notifications (`GET /unified/notification`). */
export class NotificationStore {
  constructor(private readonly db: Db) {}

  async record(n: NewNotification, now: string): Promise<void> {
    await this.db
      .insertInto('notifications')
      .values({
        id: newId('nt'),
        workspace_id: n.workspace_id,
        event: n.event,
        description: n.description,
        webhook_id: n.webhook_id ?? null,
        connection_id: n.connection_id ?? null,
        integration_type: n.integration_type ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute()
  }

  async list(f: NotificationListFilter): Promise<NotificationTable[]> {
    let q = this.db.selectFrom('notifications').selectAll().where('workspace_id', '=', f.workspaceId)
    if (f.updatedGte) q = q.where('updated_at', '>=', f.updatedGte)
    return paged(q, f).execute()
  }
}

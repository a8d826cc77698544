import type { Db } from '../store/index.js'
import type { NotificationStore } from './notifications.js'
import type { StoredWebhook } from './webhook.js'

export type FailureStage = 'dispatch' | 'read'

const counter = { dispatch: 'delivery_failures', read: 'read_failures' } as const

/**
 * Health of a webhook. Failures of its two stages (reading the provider, dispatching to the receiver) are
 * counted apart, so a flaky provider does not spend the receiver's budget. After `unhealthyAfter`
 * consecutive failures of either stage the webhook is marked unhealthy, and a WEBHOOK_UNHEALTHY
 * notification is recorded once (the conditional update makes it once even with many processes). One
 * success of that stage makes it healthy again.
 */
export class WebhookHealth {
  constructor(
    private readonly db: Db,
    private readonly notifications: NotificationStore,
    private readonly unhealthyAfter: number,
  ) {}

  async failed(webhook: StoredWebhook, stage: FailureStage, reason: string, now: string): Promise<void> {
    const column = counter[stage]
    await this.db
      .updateTable('webhooks')
      .set((eb) => ({ [column]: eb(column, '+', 1) }))
      .where('id', '=', webhook.id)
      .execute()
    const row = await this.db
      .selectFrom('webhooks')
      .select([column])
      .where('id', '=', webhook.id)
      .executeTakeFirst()
    const failures = Number(row?.[column] ?? 0)
    if (failures < this.unhealthyAfter) return
    const flipped = await this.db
      .updateTable('webhooks')
      .set({ is_healthy: 0 })
      .where('id', '=', webhook.id)
      .where('is_healthy', '=', 1)
      .executeTakeFirst()
    if (Number(flipped.numUpdatedRows) !== 1) return
    await this.notifications.record(
      {
        workspace_id: webhook.workspace_id,
        event: 'WEBHOOK_UNHEALTHY',
        description: `webhook ${webhook.id} (${webhook.object_type} ${webhook.event}) failed to ${stage === 'dispatch' ? 'deliver to its hook_url' : 'read from the provider'} ${failures} times in a row: ${reason}`,
        webhook_id: webhook.id,
        connection_id: webhook.connection_id,
        integration_type: webhook.integration_type,
      },
      now,
    )
  }

  async succeeded(webhook: StoredWebhook, stage: FailureStage): Promise<void> {
    const column = counter[stage]
    const other = counter[stage === 'dispatch' ? 'read' : 'dispatch']
    await this.db
      .updateTable('webhooks')
      .set((eb) => ({
        [column]: 0,
        is_healthy: eb.case().when(other, '<', this.unhealthyAfter).then(1).else(eb.ref('is_healthy')).end(),
      }))
      .where('id', '=', webhook.id)
      .where((eb) => eb.or([eb(column, '>', 0), eb('is_healthy', '=', 0)]))
      .execute()
  }
}

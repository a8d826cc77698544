import type { Kysely, Migration } from 'kysely'

/**
 * Webhook subscriptions, what they have seen (fingerprints), what they must still deliver (deliveries, stored
 * before any attempt so a stopped process loses nothing), their poll runs, and workspace notifications.
 */
export const webhooksMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('connection_id', 'text', (c) => c.notNull().references('connections.id').onDelete('cascade'))
      .addColumn('integration_type', 'text', (c) => c.notNull())
      .addColumn('object_type', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('hook_url', 'text', (c) => c.notNull())
      .addColumn('interval', 'integer', (c) => c.notNull())
      .addColumn('page_max_limit', 'integer', (c) => c.notNull())
      .addColumn('fields', 'text')
      .addColumn('filters', 'text', (c) => c.notNull())
      .addColumn('webhook_type', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('include_all', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('initial_done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_healthy', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('is_paused', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('read_cursor', 'text')
      .addColumn('checked_at', 'text')
      .addColumn('next_check_at', 'text')
      .addColumn('triggered_at', 'text')
      .addColumn('poll_lease', 'text')
      .addColumn('poll_lease_until', 'text')
      .addColumn('delivery_lease', 'text')
      .addColumn('delivery_lease_until', 'text')
      .addColumn('delivery_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('read_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('native_sealed', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('webhooks_workspace_idx')
      .on('webhooks')
      .columns(['workspace_id', 'created_at'])
      .execute()
    await db.schema.createIndex('webhooks_due_idx').on('webhooks').columns(['next_check_at']).execute()

    await db.schema
      .createTable('webhook_fingerprints')
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_fingerprints_pk', ['webhook_id', 'record_id'])
      .execute()

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('record_count', 'integer', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_queue_idx')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'status', 'created_at', 'position'])
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_due_idx')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute()

    await db.schema
      .createTable('webhook_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('due_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text', (c) => c.notNull())
      .addColumn('runner', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('changes', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('webhook_runs_webhook_idx')
      .on('webhook_runs')
      .columns(['webhook_id', 'started_at'])
      .execute()

    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text')
      .addColumn('connection_id', 'text')
      .addColumn('integration_type', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('notifications_workspace_idx')
      .on('notifications')
      .columns(['workspace_id', 'created_at'])
      .execute()
  },
}

import type { Kysely, Migration } from 'kysely'

/**
 * Drops `webhook_deliveries_due_idx` (status, next_attempt_at): no query reads through it since the scheduler
 * finds due webhooks from each one's oldest pending page (webhook_deliveries_queue_idx). It only cost a
 * delete and an insert in it for every stored delivery and every mark, on the delivery hot path.
 */
export const dropDeliveryDueIndexMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_due_idx').ifExists().execute()
  },
  async down(db: Kysely<unknown>) {
    await db.schema
      .createIndex('webhook_deliveries_due_idx')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute()
  },
}

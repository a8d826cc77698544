import type { Kysely, Migration } from 'kysely'

/**
 * An index on (workspace_id, next_check_at, id), from which the scheduler's poll look takes each workspace's
 * first due webhooks alone when more are due than it ranks whole (src/webhooks/due-in-turns.ts): ranking every
 * due webhook, as after an outage or with one key holder's many webhooks due every minute, held SQLite's event
 * loop for 190 ms a tick at 100,000 webhooks.
 */
export const webhookCheckDueIndexMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('webhooks_workspace_check_due_idx')
      .on('webhooks')
      .columns(['workspace_id', 'next_check_at', 'id'])
      .execute()
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhooks_workspace_check_due_idx').ifExists().execute()
  },
}

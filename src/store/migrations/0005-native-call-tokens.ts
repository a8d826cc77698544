import type { Kysely, Migration } from 'kysely'

/**
 * The one-time tokens of native webhook calls already acknowledged (Lever signs only `token + triggeredAt`,
 * so a captured call could otherwise be sent again with another body). Kept until the call would be refused
 * as stale anyway; the row goes with its webhook.
 */
export const nativeCallTokensMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('native_call_tokens')
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      // sha256 (hex) of the provider's token: fixed length whatever the provider sends.
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('keep_until', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('native_call_tokens_pk', ['webhook_id', 'token_hash'])
      .execute()
  },
}

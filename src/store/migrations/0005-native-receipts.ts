import type { Kysely, Migration } from 'kysely'

/**
 * The provider calls a native webhook has stored, by the call's own name (its signature), for providers whose
 * signed calls stay valid long enough to be sent again: a copy of a stored call is acknowledged, not delivered
 * twice. Rows expire once a copy could no longer authenticate; any process storing a call removes expired ones.
 */
export const nativeReceiptsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('native_call_receipts')
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('call_id', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('native_call_receipts_pk', ['webhook_id', 'call_id'])
      .execute()
    await db.schema
      .createIndex('native_call_receipts_expires_idx')
      .on('native_call_receipts')
      .column('expires_at')
      .execute()
  },
}

import type { Kysely, Migration } from 'kysely'

/**
 * Provider cursors remembered by list position, shared by every process on the store, so page N read on
 * one process continues where page N-1 read on another left off (src/integrations/cursors.ts). The scope
 * is kept only as its sha256, since it may hold query text; the row goes with its connection, or when it
 * expires (swept now and then).
 */
export const listCursorsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('list_cursors')
      // sha256 (hex) of the connector's scope (connection id and query).
      .addColumn('scope_hash', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('cursor', 'text', (c) => c.notNull())
      .addColumn('connection_id', 'text', (c) => c.notNull().references('connections.id').onDelete('cascade'))
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('list_cursors_pk', ['scope_hash', 'position'])
      .execute()
    // The cascade from a removed connection finds its rows by this index, as the sweep finds expired ones.
    await db.schema
      .createIndex('list_cursors_connection_idx')
      .on('list_cursors')
      .column('connection_id')
      .execute()
    await db.schema.createIndex('list_cursors_expiry_idx').on('list_cursors').column('expires_at').execute()
  },
}

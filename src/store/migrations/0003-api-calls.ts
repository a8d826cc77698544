import type { Kysely, Migration } from 'kysely'

/** The API-call log: one row per tool call (type `mcp`) and, later, per inbound API request. */
export const apiCallsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('api_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('connection_id', 'text')
      .addColumn('integration_type', 'text', (c) => c.notNull())
      .addColumn('external_xref', 'text')
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('size', 'integer')
      .addColumn('ip_address', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('is_billable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('unified_response_time', 'integer')
      .addColumn('endapi_response_time', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('api_calls_workspace_created_idx')
      .on('api_calls')
      .columns(['workspace_id', 'created_at'])
      .execute()
  },
}

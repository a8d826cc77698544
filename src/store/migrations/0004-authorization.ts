import type { Kysely, Migration } from 'kysely'

/**
 * Connection authorization: pending authorization requests (the `state` sent to providers), each
 * workspace's OAuth apps and allowed redirect origins, and the lease that lets exactly one process
 * refresh a connection's token at a time.
 */
export const authorizationMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('workspaces')
      .addColumn('allowed_redirect_origins', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute()
    await db.schema
      .createTable('auth_states')
      // sha256 of the state token: a database dump does not hand out usable authorization requests.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('integration_type', 'text', (c) => c.notNull())
      .addColumn('request_sealed', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute()
    await db.schema.createIndex('auth_states_expires_idx').on('auth_states').column('expires_at').execute()
    await db.schema
      .createTable('oauth_apps')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('integration_type', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
      .addColumn('endpoints', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_apps_pk', ['workspace_id', 'integration_type'])
      .execute()
    await db.schema
      .createTable('connection_locks')
      .addColumn('connection_id', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute()
  },
}

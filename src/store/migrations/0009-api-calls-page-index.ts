import type { Kysely, Migration } from 'kysely'

/**
 * The API-call log's index on (workspace_id, created_at) gains `id`, the list's tie-break: a page of the
 * newest calls at any offset, and the retention prune's search for a workspace's oldest rows, then read the
 * index alone instead of every row's table entry (a default page at offset 99,000 of 100,000 wide rows took
 * 133 ms on SQLite, 20 ms with it). Still one index, so an insert costs what it did (BENCHMARKS.md).
 */
export const apiCallsPageIndexMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('api_calls_workspace_created_id_idx')
      .on('api_calls')
      .columns(['workspace_id', 'created_at', 'id'])
      .execute()
    await db.schema.dropIndex('api_calls_workspace_created_idx').ifExists().execute()
  },
  async down(db: Kysely<unknown>) {
    await db.schema
      .createIndex('api_calls_workspace_created_idx')
      .on('api_calls')
      .columns(['workspace_id', 'created_at'])
      .execute()
    await db.schema.dropIndex('api_calls_workspace_created_id_idx').ifExists().execute()
  },
}

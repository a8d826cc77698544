import type { Migration, MigrationProvider } from 'kysely'
import { coreMigration } from './0001-core.js'

/**
 * One list of migrations for both dialects, written with Kysely's portable schema builder: ISO text for
 * timestamps, 0/1 integers for booleans, text for JSON. Names sort in the order they run.
 */
const migrations: Record<string, Migration> = {
  '0001_core': coreMigration,
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}

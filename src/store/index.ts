export { type DatabaseOptions, type Db, migrateToLatest, nowIso, openDatabase } from './database.js'
export type { ApiKeyTable, ConnectionTable, Database, WorkspaceTable } from './schema.js'

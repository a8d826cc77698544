export { bulkInserter } from './bulk-insert.js'
export {
  type DatabaseOptions,
  type Db,
  migrateToLatest,
  nowIso,
  openDatabase,
  pgPoolOf,
  sqliteHandleOf,
} from './database.js'
export { groupedWrites } from './grouped.js'
export { inPageOrder, type PageRequest, paged } from './paging.js'
export { type ArgOf, type PreparedQuery, preparedQuery } from './prepared.js'
export type {
  ApiKeyTable,
  AuthStateTable,
  ConnectionLockTable,
  ConnectionTable,
  Database,
  NotificationTable,
  OAuthAppTable,
  WebhookDeliveryTable,
  WebhookFingerprintTable,
  WebhookRunTable,
  WebhookTable,
  WorkspaceTable,
} from './schema.js'
export { INSERT_THREAD_FILE, type RowAppender, threadedInserter } from './thread-inserter.js'

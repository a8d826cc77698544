export { bulkInserter } from './bulk-insert.js'
export { type DatabaseOptions, type Db, migrateToLatest, nowIso, openDatabase } from './database.js'
export { type PageRequest, paged } from './paging.js'
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

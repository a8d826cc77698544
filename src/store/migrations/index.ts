import type { Migration, MigrationProvider } from 'kysely'
import { coreMigration } from './0001-core.js'
import { webhooksMigration } from './0002-webhooks.js'
import { apiCallsMigration } from './0003-api-calls.js'
import { authorizationMigration } from './0004-authorization.js'
import { nativeCallTokensMigration } from './0005-native-call-tokens.js'
import { listCursorsMigration } from './0006-list-cursors.js'
import { nativeWatchMigration } from './0007-native-watch.js'
import { dropDeliveryDueIndexMigration } from './0008-drop-delivery-due-index.js'
import { apiCallsPageIndexMigration } from './0009-api-calls-page-index.js'
import { removeDeliveredDeliveriesMigration } from './0010-remove-delivered-deliveries.js'
import { webhookCheckDueIndexMigration } from './0011-webhook-check-due-index.js'
import { removeGivenUpDeliveriesMigration } from './0012-remove-given-up-deliveries.js'

/**
 * One list of migrations for both dialects, written with Kysely's portable schema builder: ISO text for
 * timestamps, 0/1 integers for booleans, text for JSON. Names sort in the order they run.
 */
const migrations: Record<string, Migration> = {
  '0001_core': coreMigration,
  '0002_webhooks': webhooksMigration,
  '0003_api_calls': apiCallsMigration,
  '0004_authorization': authorizationMigration,
  '0005_native_call_tokens': nativeCallTokensMigration,
  '0006_list_cursors': listCursorsMigration,
  '0007_native_watch': nativeWatchMigration,
  '0008_drop_delivery_due_index': dropDeliveryDueIndexMigration,
  '0009_api_calls_page_index': apiCallsPageIndexMigration,
  '0010_remove_delivered_deliveries': removeDeliveredDeliveriesMigration,
  '0011_webhook_check_due_index': webhookCheckDueIndexMigration,
  '0012_remove_given_up_deliveries': removeGivenUpDeliveriesMigration,
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}

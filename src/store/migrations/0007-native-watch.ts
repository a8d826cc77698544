import { type Kysely, type Migration, sql } from 'kysely'

/**
 * What the periodic check of native subscriptions needs: when the provider last called (an authenticated
 * call) and when Unigate last subscribed, so a subscription found gone can say since when calls may have been
 * missed. Native webhooks made before this had no next check: they are due at once, so each is checked.
 */
export const nativeWatchMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhooks').addColumn('native_call_at', 'text').execute()
    await db.schema.alterTable('webhooks').addColumn('native_subscribed_at', 'text').execute()
    await sql`update webhooks set native_subscribed_at = created_at, next_check_at = coalesce(next_check_at, created_at) where webhook_type = 'native'`.execute(
      db,
    )
  },
}

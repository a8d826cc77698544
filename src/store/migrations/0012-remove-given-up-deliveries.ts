import type { Kysely, Migration } from 'kysely'

/**
 * Removes the deliveries given up after their last attempt. Until now each was kept, status `failed`, with its
 * data (the customer's records) until its webhook was deleted, though nothing sent or read it again; a
 * delivery given up is now removed when its attempts run out (DeliveryStore.giveUp). Pending deliveries stay.
 */
export const removeGivenUpDeliveriesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await (db as Kysely<{ webhook_deliveries: { status: string } }>)
      .deleteFrom('webhook_deliveries')
      .where('status', '=', 'failed')
      .execute()
  },
  async down() {
    // What was removed is gone; the schema is unchanged.
  },
}

import type { Kysely, Migration } from 'kysely'

/**
 * Removes the deliveries receivers accepted. Until now each was kept, status `delivered`, with its data (the
 * customer's records) for as long as its webhook lived: a store that only grew, holding copies of every record
 * ever delivered. Accepted deliveries are now removed when marked (DeliveryStore.markDelivered); this removes
 * those an older version kept. Pending and given-up (`failed`) deliveries stay.
 */
export const removeDeliveredDeliveriesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await (db as Kysely<{ webhook_deliveries: { status: string } }>)
      .deleteFrom('webhook_deliveries')
      .where('status', '=', 'delivered')
      .execute()
  },
  async down() {
    // What was removed is gone; the schema is unchanged.
  },
}

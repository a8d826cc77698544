import type { Db } from '../store/index.js'
import { pendingDeliveryRows } from './delivery-store.js'
import type { DeliveryPage } from './pages.js'

/** Stores the deliveries of one provider call together: all of them or none. */
export async function commitNativeDeliveries(
  db: Db,
  webhookId: string,
  pages: readonly DeliveryPage[],
  now: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_deliveries')
      .values(pendingDeliveryRows(webhookId, pages, now))
      .execute()
  })
}

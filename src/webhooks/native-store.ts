import type { Db } from '../store/index.js'
import { pendingDeliveryRows } from './delivery-store.js'
import type { DeliveryPage } from './pages.js'

/** The name of a provider call, kept until `expiresAt` so a copy of the call is not stored again. */
export interface NativeCallReceipt {
  readonly callId: string
  readonly expiresAt: string
}

/**
 * Stores the deliveries of one provider call together: all of them or none. With a receipt, a call stored
 * before (by any process) stores nothing: false.
 */
export async function commitNativeDeliveries(
  db: Db,
  webhookId: string,
  pages: readonly DeliveryPage[],
  now: string,
  receipt?: NativeCallReceipt,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (receipt) {
      await trx.deleteFrom('native_call_receipts').where('expires_at', '<', now).execute()
      const claimed = await trx
        .insertInto('native_call_receipts')
        .values({ webhook_id: webhookId, call_id: receipt.callId, expires_at: receipt.expiresAt })
        .onConflict((oc) => oc.columns(['webhook_id', 'call_id']).doNothing())
        .executeTakeFirst()
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) return false
    }
    await trx
      .insertInto('webhook_deliveries')
      .values(pendingDeliveryRows(webhookId, pages, now))
      .execute()
    return true
  })
}

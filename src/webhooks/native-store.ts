import { randomBytes } from 'node:crypto'
import { newId } from '../crypto/ids.js'
import type { Db } from '../store/index.js'
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
      .values(
        pages.map((page, position) => ({
          id: newId('dl'),
          webhook_id: webhookId,
          type: page.type,
          data: JSON.stringify(page.records),
          nonce: randomBytes(24).toString('base64url'),
          record_count: page.records.length,
          position,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          last_status: null,
          last_error: null,
          created_at: now,
          delivered_at: null,
        })),
      )
      .execute()
  })
}

import { createHash } from 'node:crypto'
import type { NativeCallToken } from '../integrations/types.js'
import type { Db } from '../store/index.js'
import { insertPendingDeliveries } from './delivery-store.js'
import type { DeliveryPage } from './pages.js'

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')

/** True when a call with this token was already acknowledged for the webhook. */
export async function callTokenSeen(db: Db, webhookId: string, token: NativeCallToken): Promise<boolean> {
  const row = await db
    .selectFrom('native_call_tokens')
    .select('webhook_id')
    .where('webhook_id', '=', webhookId)
    .where('token_hash', '=', tokenHash(token.token))
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Stores the deliveries of one provider call together: all of them or none. With the call's one-time token,
 * the token is remembered in the same transaction, and nothing is stored when another process already
 * remembered it (false): each token delivers once, however many processes receive it.
 */
export async function commitNativeDeliveries(
  db: Db,
  webhookId: string,
  pages: readonly DeliveryPage[],
  now: string,
  token?: NativeCallToken,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (token) {
      // Tokens past their time would be refused as stale anyway: forgotten here, so the table stays small.
      await trx
        .deleteFrom('native_call_tokens')
        .where('webhook_id', '=', webhookId)
        .where('keep_until', '<', now)
        .execute()
      const inserted = await trx
        .insertInto('native_call_tokens')
        .values({
          webhook_id: webhookId,
          token_hash: tokenHash(token.token),
          keep_until: new Date(Math.max(token.keepUntilMs, Date.parse(now))).toISOString(),
        })
        .onConflict((oc) => oc.columns(['webhook_id', 'token_hash']).doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false
    }
    await insertPendingDeliveries(trx, webhookId, pages, now)
    return true
  })
}

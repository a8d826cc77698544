import { sql } from 'kysely'
import type { Db } from '../store/index.js'

/**
 * Leases on a webhook row. Whoever holds the poll lease is the only one reading the provider for that
 * webhook; whoever holds the delivery lease is the only one sending its deliveries. A lease carries a
 * random token and an expiry, so the work of a process that died is taken over once the expiry passes,
 * and a process that lost its lease (it stalled past the expiry) cannot commit over its successor.
 */
export type LeaseKind = 'poll' | 'delivery'

const columns = {
  poll: { token: 'poll_lease', until: 'poll_lease_until' },
  delivery: { token: 'delivery_lease', until: 'delivery_lease_until' },
} as const

/** Takes the lease when it is free or expired. `dueBy` additionally requires a poll to be due. */
export async function claimLease(
  db: Db,
  kind: LeaseKind,
  webhookId: string,
  token: string,
  now: string,
  until: string,
  dueBy?: string,
): Promise<boolean> {
  const c = columns[kind]
  let q = db
    .updateTable('webhooks')
    .set({ [c.token]: token, [c.until]: until })
    .where('id', '=', webhookId)
    .where('is_paused', '=', 0)
    .where((eb) => eb.or([eb(c.until, 'is', null), eb(c.until, '<', now)]))
  if (dueBy !== undefined) q = q.where('next_check_at', '<=', dueBy)
  const result = await q.executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Extends a lease still held; false when it was lost. */
export async function renewLease(
  db: Db,
  kind: LeaseKind,
  webhookId: string,
  token: string,
  until: string,
): Promise<boolean> {
  const c = columns[kind]
  const result = await db
    .updateTable('webhooks')
    .set({ [c.until]: until })
    .where('id', '=', webhookId)
    .where(sql.ref(c.token), '=', token)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function releaseLease(db: Db, kind: LeaseKind, webhookId: string, token: string): Promise<void> {
  const c = columns[kind]
  await db
    .updateTable('webhooks')
    .set({ [c.token]: null, [c.until]: null })
    .where('id', '=', webhookId)
    .where(sql.ref(c.token), '=', token)
    .execute()
}

import type { Db } from '../../store/index.js'

/**
 * A lease on refreshing one connection, shared by every process on the database. A lease (not a
 * transaction-scoped lock) because the holder waits on a provider call meanwhile, and SQLite cannot hold
 * a transaction open without stalling its whole process; it expires, so a crashed holder blocks no one
 * for longer than ttlMs.
 */
export class RefreshLock {
  constructor(private readonly db: Db) {}

  /** One insert-or-take-over-if-expired: on both databases exactly one contender sees a changed row. */
  async acquire(connectionId: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const expires_at = new Date(now + ttlMs).toISOString()
    const result = await this.db
      .insertInto('connection_locks')
      .values({ connection_id: connectionId, holder, expires_at })
      .onConflict((oc) =>
        oc
          .column('connection_id')
          .doUpdateSet({ holder, expires_at })
          .where('connection_locks.expires_at', '<', new Date(now).toISOString()),
      )
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
  }

  async release(connectionId: string, holder: string): Promise<void> {
    await this.db
      .deleteFrom('connection_locks')
      .where('connection_id', '=', connectionId)
      .where('holder', '=', holder)
      .execute()
  }
}

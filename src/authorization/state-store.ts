import type { SecretBox } from '../crypto/keys.js'
import type { Db } from '../store/index.js'
import type { AuthRequest } from './request.js'
import { newStateToken, stateId } from './state-token.js'

export type ConsumeResult =
  | { readonly ok: true; readonly request: AuthRequest }
  /** Known but spent or expired: its (already checked) redirects are still usable for the failure. */
  | { readonly ok: false; readonly reason: 'used' | 'expired'; readonly request: AuthRequest }
  | { readonly ok: false; readonly reason: 'unknown' }

/**
 * Pending authorizations. A token is single-use (consumed by one conditional update that only one caller
 * can win, on either database), expires, and carries the workspace it was issued for.
 */
export class AuthStateStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly ttlMs: number,
    /** Pending authorizations kept per workspace; the oldest beyond it are dropped as new ones arrive. */
    private readonly maxPerWorkspace = 1000,
  ) {}

  async create(request: AuthRequest, now = new Date()): Promise<string> {
    const token = newStateToken()
    // Spent and expired rows are cleared as new ones arrive; the index keeps this cheap.
    await this.db.deleteFrom('auth_states').where('expires_at', '<', now.toISOString()).execute()
    // Unauthenticated callers create these: past the cap, the oldest of the workspace make room.
    const excess = await this.db
      .selectFrom('auth_states')
      .select('id')
      .where('workspace_id', '=', request.workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(1000)
      .offset(this.maxPerWorkspace - 1)
      .execute()
    if (excess.length > 0)
      await this.db
        .deleteFrom('auth_states')
        .where(
          'id',
          'in',
          excess.map((r) => r.id),
        )
        .execute()
    await this.db
      .insertInto('auth_states')
      .values({
        id: stateId(token),
        workspace_id: request.workspaceId,
        integration_type: request.integrationType,
        request_sealed: this.box.sealJson(request),
        attempts: 0,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
        used_at: null,
      })
      .execute()
    return token
  }

  /** Reads a pending request without spending it (the API-key page is shown, then submitted). */
  async peek(token: string, now = new Date()): Promise<ConsumeResult> {
    const row = await this.db
      .selectFrom('auth_states')
      .selectAll()
      .where('id', '=', stateId(token))
      .executeTakeFirst()
    if (!row) return { ok: false, reason: 'unknown' }
    const request = this.box.openJson<AuthRequest>(row.request_sealed)
    if (row.workspace_id !== request.workspaceId) return { ok: false, reason: 'unknown' }
    if (row.used_at !== null) return { ok: false, reason: 'used', request }
    if (row.expires_at <= now.toISOString()) return { ok: false, reason: 'expired', request }
    return { ok: true, request }
  }

  /** Spends the token: exactly one caller gets ok, however many race. */
  async consume(token: string, now = new Date()): Promise<ConsumeResult> {
    const at = now.toISOString()
    const result = await this.db
      .updateTable('auth_states')
      .set({ used_at: at })
      .where('id', '=', stateId(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .executeTakeFirst()
    const seen = await this.peek(token, now)
    if (Number(result.numUpdatedRows) === 1 && seen.ok === false && seen.reason === 'used') {
      return { ok: true, request: seen.request }
    }
    return seen.ok ? { ok: false, reason: 'used', request: seen.request } : seen
  }

  /**
   * Counts an attempt on the key page, in one statement; answers the count with this one, or undefined when
   * the state is gone (spent or never made).
   */
  async countAttempt(token: string): Promise<number | undefined> {
    const row = await this.db
      .updateTable('auth_states')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', stateId(token))
      .returning('attempts')
      .executeTakeFirst()
    return row?.attempts
  }

  /** Gives back an attempt counted for a submit that tried nothing (see KeyPage.submit). */
  async refundAttempt(token: string): Promise<void> {
    await this.db
      .updateTable('auth_states')
      .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
      .where('id', '=', stateId(token))
      .where('attempts', '>', 0)
      .execute()
  }
}

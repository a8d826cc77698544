import { jwtVerify, SignJWT } from 'jose'
import { newId } from '../crypto/ids.js'
import { deriveKey } from '../crypto/keys.js'
import type { ChangeNotifier } from '../store/change-notifier.js'
import { type Db, nowIso } from '../store/index.js'

export interface ApiKeyClaims {
  readonly workspaceId: string
  readonly keyId: string
}

/**
 * Workspace API keys are HS256 JWTs (the SDK calls its scheme `jwt`) signed with a key derived from the
 * master key, so a request is authenticated without a database round trip. Revocation is a table: the
 * process that revokes a key stops accepting it at once, the others when the change notifier (PostgreSQL
 * NOTIFY) tells them, and every process also reloads the table in the background in case it missed one.
 */
export class ApiKeys {
  private readonly signingKey: Uint8Array
  private readonly revoked = new Set<string>()
  private readonly verified = new Map<string, ApiKeyClaims>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    masterKey: Buffer,
    private readonly changes?: ChangeNotifier,
  ) {
    this.signingKey = deriveKey(masterKey, 'api-keys')
    changes?.subscribe('api_key', {
      invalidate: (keyId) => {
        this.recheck(keyId).catch(() => {})
      },
      invalidateAll: () => {
        this.refreshRevocations().catch(() => {})
      },
    })
  }

  async issue(workspaceId: string): Promise<{ keyId: string; apiKey: string }> {
    const keyId = newId('key')
    await this.db
      .insertInto('api_keys')
      .values({ id: keyId, workspace_id: workspaceId, created_at: nowIso(), revoked_at: null })
      .execute()
    const apiKey = await new SignJWT({ workspace_id: workspaceId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti(keyId)
      .setSubject(workspaceId)
      .setIssuedAt()
      .sign(this.signingKey)
    return { keyId, apiKey }
  }

  async revoke(keyId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso() })
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    this.revoked.add(keyId)
    await this.changes?.publish('api_key', keyId)
    return Number(result.numUpdatedRows) > 0
  }

  async list(workspaceId: string) {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .execute()
  }

  /**
   * What `verify` answers, when this process has verified the token before: the claims, or undefined when
   * the key is revoked since; `unknown` when the signature still has to be checked (then call `verify`).
   * Lets the request hook answer a known key without a promise.
   */
  verifiedBefore(token: string): ApiKeyClaims | undefined | 'unknown' {
    const claims = this.verified.get(token)
    if (!claims) return 'unknown'
    return this.revoked.has(claims.keyId) ? undefined : claims
  }

  /** Verifies a key without touching the database; undefined when it is invalid or revoked. */
  async verify(token: string): Promise<ApiKeyClaims | undefined> {
    let claims = this.verified.get(token)
    if (!claims) {
      try {
        const { payload } = await jwtVerify(token, this.signingKey, { algorithms: ['HS256'] })
        if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return undefined
        claims = { workspaceId: payload.sub, keyId: payload.jti }
      } catch {
        return undefined
      }
      if (this.verified.size > 10_000) this.verified.clear()
      this.verified.set(token, claims)
    }
    return this.revoked.has(claims.keyId) ? undefined : claims
  }

  /**
   * Adds every revoked key to the set. It only ever adds: a revocation is final, and a reload that started
   * before a revocation must not drop the key that a notification has just added.
   */
  async refreshRevocations(): Promise<void> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('revoked_at', 'is not', null)
      .execute()
    for (const row of rows) this.revoked.add(row.id)
  }

  /** Another process announced a change of this key: read whether it is revoked now. */
  private async recheck(keyId: string): Promise<void> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', keyId)
      .executeTakeFirst()
    if (row?.revoked_at) this.revoked.add(keyId)
  }

  async start(refreshMs: number): Promise<void> {
    await this.refreshRevocations()
    this.timer = setInterval(() => {
      this.refreshRevocations().catch(() => {})
    }, refreshMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }
}

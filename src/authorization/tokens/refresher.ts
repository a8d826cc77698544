import { randomUUID } from 'node:crypto'
import type { ConnectionStore, StoredConnection, TokenRefresher } from '../../connections/index.js'
import { ApiError } from '../../errors.js'
import { redactSecrets } from '../../integrations/http-client.js'
import { integrationOf } from '../../integrations/registry.js'
import type { Credentials } from '../../integrations/types.js'
import { nowIso } from '../../store/index.js'
import type { OAuthAppStore } from '../oauth-apps.js'
import { oauthSpecOf } from '../oauth-spec.js'
import { refreshBackoffMs } from './backoff.js'
import type { RefreshLock } from './lock.js'
import { oauthClientFor, tokenAddresses } from './pinned.js'
import { basicCredentialsOf, type TokenClient } from './token-client.js'
import { credentialsFromTokens, msUntilExpiry, TokenEndpointError } from './token-set.js'

export interface RefresherDeps {
  readonly store: ConnectionStore
  readonly oauthApps: OAuthAppStore
  readonly tokens: TokenClient
  readonly lock: RefreshLock
  /** Refresh this long before expiry. */
  readonly marginMs: number
  /** How long a process may wait for another one's refresh before answering 503. */
  readonly waitMs?: number
  /** The connection's stored state changed (drop cached copies). */
  readonly onChanged: (connectionId: string) => void
}

type Why = 'expiring' | 'rejected'

/**
 * How much longer than its token request a refresh holds its lease: for its reads and its write of the
 * connection around the request.
 */
const LEASE_MARGIN_MS = 10_000

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/**
 * OAuth token refresh that happens once however many requests and processes need it: requests of one
 * process share one promise per connection, and processes share a database lease; whoever does not hold
 * it waits for the new token to appear in the store. A dead grant (`invalid_grant`) marks the connection
 * unhealthy and every later request answers 403 without calling the provider; a provider outage backs
 * off instead of being asked again on every request.
 */
export class OAuthRefresher implements TokenRefresher {
  private readonly inflight = new Map<string, Promise<Credentials>>()
  private readonly failures = new Map<string, { count: number; until: number; message: string }>()

  constructor(private readonly d: RefresherDeps) {}

  private needsRefresh(c: Credentials, now = Date.now()): boolean {
    const left = msUntilExpiry(c, now)
    return left !== undefined && left <= this.d.marginMs
  }

  async fresh(connection: StoredConnection, current: Credentials): Promise<Credentials> {
    if (current.refresh_error) throw this.reauthorize(connection, current.refresh_error)
    if (!this.needsRefresh(current)) return current
    try {
      return await this.once(connection, current, 'expiring')
    } catch (err) {
      // Refreshing early failed for a passing reason: the current token still works until it expires.
      const left = msUntilExpiry(current, Date.now())
      if (err instanceof ApiError && err.statusCode !== 403 && left !== undefined && left > 0) return current
      throw err
    }
  }

  async renew(connection: StoredConnection, rejected: Credentials): Promise<Credentials | undefined> {
    if (rejected.refresh_error || !rejected.refresh_token) return undefined
    return this.once(connection, rejected, 'rejected')
  }

  private once(connection: StoredConnection, current: Credentials, why: Why): Promise<Credentials> {
    const running = this.inflight.get(connection.id)
    if (running) return running
    const started = this.shared(connection, current, why).finally(() => this.inflight.delete(connection.id))
    this.inflight.set(connection.id, started)
    return started
  }

  /** Newer credentials than `current` that make a refresh unnecessary (another process refreshed). */
  private replaces(stored: Credentials, current: Credentials, why: Why): boolean {
    if (stored.access_token === current.access_token) return false
    return why === 'rejected' || !this.needsRefresh(stored)
  }

  private async shared(connection: StoredConnection, current: Credentials, why: Why): Promise<Credentials> {
    const failed = this.failures.get(connection.id)
    if (failed && failed.until > Date.now()) throw this.unavailable(connection, failed.until, failed.message)
    const holder = randomUUID()
    const deadline = Date.now() + (this.d.waitMs ?? 15_000)
    for (;;) {
      const stored = await this.read(connection)
      if (stored.refresh_error) throw this.reauthorize(connection, stored.refresh_error)
      if (this.replaces(stored, current, why)) return stored
      // The lease outlasts the token request (a refresh may wait for a slot of its workspace first): one
      // taken over mid-refresh would let a second process spend the same refresh token, which providers that
      // rotate refresh tokens answer invalid_grant, and the connection would be marked dead.
      if (await this.d.lock.acquire(connection.id, holder, this.d.tokens.longestMs + LEASE_MARGIN_MS)) {
        try {
          // Read again under the lease: the previous holder may have finished between our two reads.
          const latest = await this.read(connection)
          if (latest.refresh_error) throw this.reauthorize(connection, latest.refresh_error)
          if (this.replaces(latest, current, why)) return latest
          return await this.refresh(connection, latest)
        } finally {
          await this.d.lock.release(connection.id, holder)
        }
      }
      if (Date.now() > deadline)
        throw this.unavailable(connection, Date.now() + 1000, 'another refresh is still running')
      await sleep(20 + Math.random() * 40)
    }
  }

  private async read(connection: StoredConnection): Promise<Credentials> {
    const stored = await this.d.store.get(connection.workspace_id, connection.id)
    if (!stored) throw new ApiError(404, `connection ${connection.id} not found`)
    return stored.credentials
  }

  private async client(connection: StoredConnection, c: Credentials) {
    const integration = integrationOf(connection.integration_type)
    const spec = integration && oauthSpecOf(integration)
    if (!spec) throw new ApiError(500, `${connection.integration_type} does not use OAuth`)
    const app = await this.d.oauthApps.get(connection.workspace_id, connection.integration_type)
    return {
      client: oauthClientFor(c, spec, app, 'token'),
      tokenUrl: tokenAddresses(c, spec, app).tokenUrl,
      keep: spec.tokenFields ?? [],
    }
  }

  private async refresh(connection: StoredConnection, c: Credentials): Promise<Credentials> {
    if (!c.refresh_token) return this.dead(connection, c, 401, 'no refresh token was issued')
    const { client, tokenUrl, keep } = await this.client(connection, c)
    if (!client) return this.dead(connection, c, 401, 'no OAuth client is configured to refresh the token')
    try {
      const tokens = await this.d.tokens.refresh(
        connection.workspace_id,
        tokenUrl,
        client,
        c.refresh_token,
        keep,
      )
      const next = credentialsFromTokens(tokens, c, new Date())
      await this.d.store.update(connection.workspace_id, connection.id, { credentials: next }, nowIso())
      this.failures.delete(connection.id)
      this.d.onChanged(connection.id)
      return next
    } catch (err) {
      if (!(err instanceof TokenEndpointError)) throw err
      // The endpoint's words are kept (refresh_error) and shown to the key holder, without what was sent to
      // it: a token endpoint may quote the refresh token or client secret it refuses.
      const basic = client.clientSecret ? basicCredentialsOf(client.clientId, client.clientSecret) : undefined
      const message = redactSecrets(err.message, [
        c.refresh_token,
        c.access_token,
        client.clientSecret,
        basic,
      ])
      if (err.isInvalidGrant) return this.dead(connection, c, err.status, message)
      const count = (this.failures.get(connection.id)?.count ?? 0) + 1
      const until = Date.now() + refreshBackoffMs(count)
      this.failures.set(connection.id, { count, until, message })
      throw this.unavailable(connection, until, message)
    }
  }

  /** The grant is gone: remember it with the credentials (so no process asks again) and mark the connection. */
  private async dead(
    connection: StoredConnection,
    c: Credentials,
    status: number,
    reason: string,
  ): Promise<never> {
    const at = nowIso()
    await this.d.store.update(
      connection.workspace_id,
      connection.id,
      {
        credentials: { ...c, refresh_error: reason },
        last_unhealthy_at: at,
        last_unhealthy_code: String(status),
      },
      at,
    )
    this.d.onChanged(connection.id)
    throw this.reauthorize(connection, reason)
  }

  private reauthorize(connection: StoredConnection, stored: string): ApiError {
    const name = integrationOf(connection.integration_type)?.name ?? connection.integration_type
    // Kept before refusals were redacted, a reason may still quote what the token endpoint was sent.
    const c = connection.credentials
    const reason = redactSecrets(stored, [c.refresh_token, c.access_token, c.client_secret])
    return new ApiError(
      403,
      `${name} no longer accepts this connection's authorization (${reason}); re-authorize it: send the user through GET /unified/integration/auth/${connection.workspace_id}/${connection.integration_type}`,
      {},
      { reauthorize: true },
    )
  }

  private unavailable(connection: StoredConnection, until: number, reason: string): ApiError {
    const name = integrationOf(connection.integration_type)?.name ?? connection.integration_type
    const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000))
    return new ApiError(
      503,
      `${name} could not renew this connection's access token (${reason}); retry in ${seconds} s`,
      { 'retry-after': String(seconds) },
    )
  }
}

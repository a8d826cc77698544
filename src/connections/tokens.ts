import type { AuthHeaderSource } from '../integrations/http-client.js'
import type { Credentials, IntegrationDefinition } from '../integrations/types.js'
import type { StoredConnection } from './connection.js'

/** Keeps a connection's OAuth tokens alive; implemented by the authorization module. */
export interface TokenRefresher {
  /** Credentials whose access token is good beyond the refresh margin, refreshing first when it is not. */
  fresh(connection: StoredConnection, current: Credentials): Promise<Credentials>
  /** The provider refused `rejected`: newer credentials (refreshed here or by anyone else), or undefined. */
  renew(connection: StoredConnection, rejected: Credentials): Promise<Credentials | undefined>
}

/**
 * A connection's auth headers, built from credentials the refresher keeps current.
 *
 * A passthrough 401 renews nothing here (no `renewsAfterRelayedRefusal`): renewing is a refresh (a token
 * request, a stored write every process hears of, a new refresh token at providers that rotate them), and
 * passthrough, which relays its 401 without retrying, cannot tell whether the refresh helped; its paths are
 * the caller's, so one whose 401 is that endpoint's own would refresh on every call. The unified routes
 * renew after a 401 because they retry at once and learn whether it helped (a second 401 marks the
 * connection unhealthy); tokens are also renewed before their stated expiry.
 */
export class RefreshingAuth implements AuthHeaderSource {
  private credentials: Credentials

  constructor(
    private readonly integration: IntegrationDefinition,
    private readonly connection: StoredConnection,
    private readonly refresher: TokenRefresher,
  ) {
    this.credentials = connection.credentials
  }

  async headers(): Promise<Readonly<Record<string, string>>> {
    this.credentials = await this.refresher.fresh(this.connection, this.credentials)
    return this.integration.authHeaders(this.credentials)
  }

  async rejected(used: Readonly<Record<string, string>>): Promise<boolean> {
    const now = this.integration.authHeaders(this.credentials)
    // Another request of this connection already renewed them: just retry with those.
    if (JSON.stringify(now) !== JSON.stringify(used)) return true
    const renewed = await this.refresher.renew(this.connection, this.credentials)
    if (!renewed) return false
    this.credentials = renewed
    return true
  }
}

import { authFieldsOf, oauthOf } from '../integrations/auth-methods.js'
import { CursorBank } from '../integrations/cursors.js'
import { type AuthHeaderSource, ProviderClient } from '../integrations/http-client.js'
import { integrationOf } from '../integrations/registry.js'
import type { Credentials, IntegrationDefinition } from '../integrations/types.js'
import type { ProviderTransport } from '../outbound/index.js'
import type { ChangeNotifier } from '../store/change-notifier.js'
import { nowIso } from '../store/index.js'
import { ClientCredentialsAuth } from './client-credentials.js'
import { ALWAYS_SECRET, type StoredConnection } from './connection.js'
import type { ConnectionStore } from './store.js'
import { RefreshingAuth, type TokenRefresher } from './tokens.js'

export interface ProviderClientSettings {
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly maxRetryWaitMs: number
  readonly transport: ProviderTransport
  /** Verification's clients: a 2xx that is not JSON is refused (ProviderClientOptions.jsonAnswersOnly). */
  readonly jsonAnswersOnly?: boolean
}

export interface ResolvedConnection {
  readonly connection: StoredConnection
  readonly integration: IntegrationDefinition
  readonly client: ProviderClient
}

export function providerClientFor(
  integration: IntegrationDefinition,
  credentials: Credentials,
  settings: ProviderClientSettings,
  auth?: AuthHeaderSource,
  /**
   * Whose calls these are: the workspace's, which they count against (its concurrency slots, and its reads
   * while memory is short), and once the connection has an id, the connection's, whose slots they share.
   */
  owner?: { readonly connectionId?: string; readonly workspaceId: string },
): ProviderClient {
  // A client credentials grant replaces stored tokens: the connection's client fetches its own.
  const source =
    auth ??
    (integration.clientCredentials
      ? new ClientCredentialsAuth(
          integration.clientCredentials,
          credentials,
          settings.transport,
          settings.timeoutMs,
          owner?.workspaceId,
        )
      : undefined)
  const authHeaders = integration.authHeaders(credentials)
  return new ProviderClient({
    baseUrl: integration.baseUrl(credentials),
    authHeaders,
    secrets: secretValues(integration, credentials, authHeaders),
    ...(source ? { auth: source } : {}),
    ...(owner?.connectionId !== undefined ? { limitKey: owner.connectionId } : {}),
    ...(owner ? { workspaceKey: owner.workspaceId } : {}),
    retry: integration.retry,
    ...(integration.errorMessageHeader ? { errorMessageHeader: integration.errorMessageHeader } : {}),
    ...settings,
  })
}

/**
 * The values a provider message must never carry (ProviderClientOptions.secrets): the connection's secret
 * credentials and the auth headers made of them (a Basic header's encoded pair).
 */
function secretValues(
  integration: IntegrationDefinition,
  credentials: Credentials,
  authHeaders: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([
    ...authFieldsOf(integration)
      .filter((f) => f.secret)
      .map((f) => f.name),
    ...ALWAYS_SECRET,
  ])
  const values = [...names].map((name) => credentials[name])
  return [...values, ...Object.values(authHeaders)].filter((v): v is string => typeof v === 'string')
}

/**
 * Resolves a connection for the request path: read and unsealed once, then served from memory.
 * Changes made by this process invalidate the entry at once; changes made by other processes arrive
 * through the change notifier (PostgreSQL NOTIFY), and at the latest when the entry expires (ttlMs).
 */
export class ConnectionResolver {
  private readonly cache = new Map<string, { resolved: ResolvedConnection; expires: number }>()
  /** Bumped on every invalidation: a read that overlapped one may be stale and is not cached. */
  private generation = 0

  constructor(
    private readonly store: ConnectionStore,
    private readonly clientSettings: ProviderClientSettings,
    private readonly ttlMs: number,
    /** Renews OAuth tokens before expiry and after a 401; without one, tokens are used as stored. */
    private readonly tokens?: TokenRefresher,
    /** Announces this process's changes to the others and tells this one of theirs. */
    private readonly changes?: ChangeNotifier,
    /** Provider cursors of cursor-paged lists, in memory and (with a store) shared by every process. */
    readonly cursors: CursorBank = new CursorBank(),
  ) {
    changes?.subscribe('connection', {
      invalidate: (id) => this.drop(id),
      invalidateAll: () => this.dropAll(),
    })
  }

  async resolve(workspaceId: string, id: string): Promise<ResolvedConnection | undefined> {
    const hit = this.cache.get(id)
    if (hit && hit.expires > Date.now()) {
      return hit.resolved.connection.workspace_id === workspaceId ? hit.resolved : undefined
    }
    const generation = this.generation
    const connection = await this.store.get(workspaceId, id)
    const integration = connection && integrationOf(connection.integration_type)
    if (!connection || !integration) return undefined
    const resolved = {
      connection,
      integration,
      client: providerClientFor(
        integration,
        connection.credentials,
        this.clientSettings,
        // Also for API-key credentials of an integration that offers OAuth beside keys: without an
        // expiry or a refresh token the refresher leaves them as they are.
        this.tokens && oauthOf(integration)
          ? new RefreshingAuth(integration, connection, this.tokens)
          : undefined,
        { connectionId: connection.id, workspaceId: connection.workspace_id },
      ),
    }
    if (generation !== this.generation) return resolved
    if (this.cache.size > 50_000) this.cache.clear()
    this.cache.set(id, { resolved, expires: Date.now() + this.ttlMs })
    return resolved
  }

  /** The connection changed or was removed (the write has committed): forget it here and everywhere. */
  async invalidate(id: string): Promise<void> {
    this.drop(id)
    await this.changes?.publish('connection', id)
  }

  private drop(id: string): void {
    this.generation++
    this.cache.delete(id)
  }

  private dropAll(): void {
    this.generation++
    this.cache.clear()
  }

  /** Records that the provider rejected the credentials (once per change of state, not per request). */
  async markUnhealthy(resolved: ResolvedConnection, code: number): Promise<void> {
    const c = resolved.connection
    if (c.last_unhealthy_code === String(code) && isUnhealthy(c)) return
    await this.store.update(
      c.workspace_id,
      c.id,
      { last_unhealthy_at: nowIso(), last_unhealthy_code: String(code) },
      nowIso(),
    )
    await this.invalidate(c.id)
  }

  async markHealthyIfNeeded(resolved: ResolvedConnection): Promise<void> {
    const c = resolved.connection
    if (!isUnhealthy(c)) return
    await this.store.update(c.workspace_id, c.id, { last_healthy_at: nowIso() }, nowIso())
    await this.invalidate(c.id)
  }
}

export function isUnhealthy(c: StoredConnection): boolean {
  return (
    c.last_unhealthy_at !== undefined &&
    (c.last_healthy_at === undefined || c.last_unhealthy_at > c.last_healthy_at)
  )
}

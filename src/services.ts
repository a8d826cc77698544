import { join } from 'node:path'
import pino from 'pino'
import { ApiCallLog, ApiCallRetention } from './apicalls/index.js'
import {
  type Authorization,
  createAuthorization,
  createTokenRefresher,
  oauthAddressPinner,
  RefreshLock,
  tokenRevoker,
} from './authorization/index.js'
import type { Config } from './config.js'
import { ConnectionResolver, ConnectionService, ConnectionStore } from './connections/index.js'
import { SecretBox } from './crypto/keys.js'
import { errorSerializers } from './http/logging.js'
import { CursorBank, CursorMemory } from './integrations/cursors.js'
import { ProviderTransport } from './outbound/index.js'
import { ChangeNotifier } from './store/change-notifier.js'
import { type Db, migrateToLatest, openDatabase } from './store/index.js'
import { ListCursorStore } from './store/list-cursors.js'
import { WebhookRuntime } from './webhooks/index.js'
import { ApiKeys, WorkspaceSettingsCache, WorkspaceStore } from './workspaces/index.js'

/** Everything the HTTP layer and the CLI work with, built once per process from the configuration. */
export interface Services {
  readonly config: Config
  readonly db: Db
  readonly workspaces: WorkspaceStore
  readonly workspaceSettings: WorkspaceSettingsCache
  readonly apiKeys: ApiKeys
  readonly connectionStore: ConnectionStore
  readonly connections: ConnectionService
  readonly resolver: ConnectionResolver
  /** The API-call log (tool calls are recorded as type `mcp`), written in batches off the request path. */
  readonly apiCalls: ApiCallLog
  /** Removes calls past the log's bounds (UNIGATE_API_CALL_LOG_*), in the background with the server. */
  readonly apiCallRetention: ApiCallRetention
  /** Webhooks: the API-facing service and the background polling and delivery (started with the server). */
  readonly webhooks: WebhookRuntime
  /** End-user authorization: the auth endpoint, hosted pages, OAuth callback and OAuth apps. */
  readonly authorization: Authorization
  /** Tells other processes' caches about changes (PostgreSQL NOTIFY); in-process only on SQLite. */
  readonly changes: ChangeNotifier
  /** Every request to a provider or an OAuth token endpoint: address policy, timeouts, caps, fairness. */
  readonly transport: ProviderTransport
  close(): Promise<void>
}

export interface ServiceOptions {
  /** PostgreSQL schema (tests isolate themselves in one). */
  readonly pgSchema?: string
  /** Keep the key revocation list fresh in the background (servers do; one-shot CLI commands do not). */
  readonly background?: boolean
  /** Where background JSON log lines go (stdout by default); tests read them to prove no secret is logged. */
  readonly logStream?: NodeJS.WritableStream
}

export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const storeLogOptions = {
    level: config.logLevel,
    base: { component: 'store' },
    serializers: errorSerializers,
  }
  const storeLog = options.logStream ? pino(storeLogOptions, options.logStream) : pino(storeLogOptions)
  const db = openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: join(config.dataDir, 'unigate.db'),
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    onLostConnection: (lost) =>
      storeLog.warn(lost, 'PostgreSQL closed an idle connection; the pool opens another'),
  })
  await migrateToLatest(db, options.pgSchema)
  const box = new SecretBox(config.masterKey)
  const changesLog = pino({
    level: config.logLevel,
    base: { component: 'changes' },
    serializers: errorSerializers,
  })
  const changes = new ChangeNotifier(
    config.databaseUrl
      ? {
          db,
          databaseUrl: config.databaseUrl,
          ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
          onError: (err, context) => changesLog.warn({ err, context }, 'change notification failed'),
        }
      : undefined,
  )
  // Listening starts before the caches fill, so no change falls between a load and the first notification.
  if (options.background !== false) await changes.start()
  const apiKeys = new ApiKeys(db, config.masterKey, changes)
  if (options.background !== false) await apiKeys.start(config.keyRevocationRefreshMs)
  const transport = new ProviderTransport({ ...config.outbound, timeoutMs: config.providerTimeoutMs })
  const clientSettings = {
    timeoutMs: config.providerTimeoutMs,
    maxRetries: config.providerMaxRetries,
    maxRetryWaitMs: config.providerMaxRetryWaitMs,
    transport,
  }
  const connectionStore = new ConnectionStore(db, box)
  // One lease per connection for everything that reads its credentials and writes them back: a token refresh
  // and a PUT or PATCH that gives credentials, so neither writes over what the other just wrote.
  const refreshLock = new RefreshLock(db)
  const tokens = createTokenRefresher({
    db,
    box,
    store: connectionStore,
    providerTimeoutMs: config.providerTimeoutMs,
    transport,
    lock: refreshLock,
    marginMs: config.authorization.refreshMarginMs,
    waitMs: config.authorization.refreshWaitMs,
    onChanged: (id) => void resolver.invalidate(id),
  })
  const resolver = new ConnectionResolver(
    connectionStore,
    clientSettings,
    config.keyRevocationRefreshMs,
    tokens,
    changes,
    new CursorBank(new CursorMemory(), new ListCursorStore(db)),
  )
  const workspaces = new WorkspaceStore(db, box)
  const apiCallLogOptions = {
    level: config.logLevel,
    base: { component: 'apicalls' },
    serializers: errorSerializers,
  }
  const apiCallsLog = options.logStream ? pino(apiCallLogOptions, options.logStream) : pino(apiCallLogOptions)
  // Its failures (a batch not written, the insert thread lost) go to the structured log with the error
  // serializers, as the prune's do.
  const apiCalls = new ApiCallLog(db, apiCallsLog)
  const connections = new ConnectionService(
    connectionStore,
    resolver,
    clientSettings,
    config.region,
    { lock: refreshLock, waitMs: config.authorization.refreshWaitMs },
    config.outbound.allowAddresses,
  )
  const backgroundOptions = {
    level: config.logLevel,
    base: { component: 'webhooks' },
    serializers: errorSerializers,
  }
  const backgroundLog = options.logStream
    ? pino(backgroundOptions, options.logStream)
    : pino(backgroundOptions)
  const webhooks = new WebhookRuntime({
    db,
    box,
    connectionStore,
    resolver,
    workspaces,
    settings: config.webhooks,
    outbound: config.outbound,
    publicUrl: config.publicUrl,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    jobSchema: options.pgSchema ? `${options.pgSchema}_jobs` : 'pgboss',
    onError: (err, context) => backgroundLog.error({ err, context }, 'webhook background work failed'),
    onWarning: (fields, message) => backgroundLog.warn(fields, message),
  })
  // A connection's webhooks go with it, unsubscribed at the provider while its credentials still exist.
  connections.onBeforeRemove((workspaceId, id) => webhooks.service.removeForConnection(workspaceId, id))
  if (options.background !== false) await webhooks.start()
  const apiCallRetention = new ApiCallRetention(db, apiCalls, config.apiCallLog, (err) =>
    apiCallsLog.error({ err }, 'pruning the API-call log failed'),
  )
  if (options.background !== false) apiCallRetention.start()
  const workspaceSettings = new WorkspaceSettingsCache(workspaces, config.keyRevocationRefreshMs, changes)
  const authorization = createAuthorization({
    db,
    box,
    publicUrl: config.publicUrl,
    settings: config.authorization,
    providerTimeoutMs: config.providerTimeoutMs,
    transport,
    workspaces,
    workspaceSettings,
    connections,
  })
  connections.pinCredentialsWith(oauthAddressPinner(authorization.oauthApps))
  connections.onBeforeRemove(
    tokenRevoker(authorization, connectionStore, (err, id) =>
      backgroundLog.warn(
        { err, connection_id: id },
        'revoking the removed connection at the provider failed',
      ),
    ),
  )
  return {
    config,
    db,
    workspaces,
    workspaceSettings,
    apiKeys,
    connectionStore,
    connections,
    resolver,
    apiCalls,
    apiCallRetention,
    webhooks,
    authorization,
    changes,
    transport,
    async close() {
      // Running polls and deliveries finish first (bounded by UNIGATE_WEBHOOK_STOP_TIMEOUT_MS): they still
      // need the database, the provider transport and change notifications to release their leases.
      await webhooks.stop()
      await apiCallRetention.stop()
      apiKeys.stop()
      await changes.close()
      await apiCalls.close()
      await db.destroy()
      await transport.close()
    },
  }
}

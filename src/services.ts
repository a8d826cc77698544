import { join } from 'node:path'
import type { Config } from './config.js'
import { ConnectionResolver, ConnectionService, ConnectionStore } from './connections/index.js'
import { SecretBox } from './crypto/keys.js'
import { type Db, migrateToLatest, openDatabase } from './store/index.js'
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
  close(): Promise<void>
}

export interface ServiceOptions {
  /** PostgreSQL schema (tests isolate themselves in one). */
  readonly pgSchema?: string
  /** Keep the key revocation list fresh in the background (servers do; one-shot CLI commands do not). */
  readonly background?: boolean
}

export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const db = openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: join(config.dataDir, 'unigate.db'),
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  })
  await migrateToLatest(db, options.pgSchema)
  const box = new SecretBox(config.masterKey)
  const apiKeys = new ApiKeys(db, config.masterKey)
  if (options.background !== false) await apiKeys.start(config.keyRevocationRefreshMs)
  const clientSettings = {
    timeoutMs: config.providerTimeoutMs,
    maxRetries: config.providerMaxRetries,
    maxRetryWaitMs: config.providerMaxRetryWaitMs,
  }
  const connectionStore = new ConnectionStore(db, box)
  const resolver = new ConnectionResolver(connectionStore, clientSettings, config.keyRevocationRefreshMs)
  const workspaces = new WorkspaceStore(db, box)
  return {
    config,
    db,
    workspaces,
    workspaceSettings: new WorkspaceSettingsCache(workspaces, config.keyRevocationRefreshMs),
    apiKeys,
    connectionStore,
    connections: new ConnectionService(connectionStore, resolver, clientSettings, config.region),
    resolver,
    async close() {
      apiKeys.stop()
      await db.destroy()
    },
  }
}

import { sql } from 'kysely'
import type { SecretBox } from '../crypto/keys.js'
import type { ConnectionSettings, Credentials } from '../integrations/types.js'
import { type ConnectionTable, type Db, paged } from '../store/index.js'
import { oneOfWorkspace, removeFromWorkspace } from '../store/workspace-rows.js'
import type { StoredConnection } from './connection.js'

export interface ConnectionListFilter {
  readonly workspaceId: string
  readonly categories?: readonly string[]
  readonly environment?: string
  readonly externalXref?: string
  readonly updatedGte?: string
  readonly sort: 'created_at' | 'updated_at' | 'integration_type'
  readonly order: 'asc' | 'desc'
  readonly limit: number
  readonly offset: number
}

export type NewConnection = Omit<
  StoredConnection,
  'is_paused' | 'last_healthy_at' | 'last_unhealthy_at' | 'last_unhealthy_code'
>

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export type ConnectionChanges = Mutable<
  Partial<
    Pick<
      StoredConnection,
      | 'categories'
      | 'permissions'
      | 'external_xref'
      | 'environment'
      | 'credentials'
      | 'settings'
      | 'last_healthy_at'
      | 'last_unhealthy_at'
      | 'last_unhealthy_code'
    >
  >
>

/** Connections in the database; credentials are sealed with AES-256-GCM before they are written. */
export class ConnectionStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  private fromRow(row: ConnectionTable): StoredConnection {
    return {
      id: row.id,
      workspace_id: row.workspace_id,
      integration_type: row.integration_type,
      categories: JSON.parse(row.categories) as string[],
      permissions: JSON.parse(row.permissions) as string[],
      ...(row.external_xref !== null ? { external_xref: row.external_xref } : {}),
      environment: row.environment,
      is_paused: row.is_paused === 1,
      created_at: row.created_at,
      updated_at: row.updated_at,
      ...(row.last_healthy_at ? { last_healthy_at: row.last_healthy_at } : {}),
      ...(row.last_unhealthy_at ? { last_unhealthy_at: row.last_unhealthy_at } : {}),
      ...(row.last_unhealthy_code ? { last_unhealthy_code: row.last_unhealthy_code } : {}),
      credentials: this.box.openJson<Credentials>(row.auth_sealed),
      settings: JSON.parse(row.settings) as ConnectionSettings,
    }
  }

  async insert(c: NewConnection): Promise<StoredConnection> {
    await this.db
      .insertInto('connections')
      .values({
        id: c.id,
        workspace_id: c.workspace_id,
        integration_type: c.integration_type,
        categories: JSON.stringify(c.categories),
        permissions: JSON.stringify(c.permissions),
        external_xref: c.external_xref ?? null,
        environment: c.environment,
        auth_sealed: this.box.sealJson(c.credentials),
        settings: JSON.stringify(c.settings),
        is_paused: 0,
        created_at: c.created_at,
        updated_at: c.updated_at,
        last_healthy_at: c.created_at,
        last_unhealthy_at: null,
        last_unhealthy_code: null,
      })
      .execute()
    return (await this.get(c.workspace_id, c.id))!
  }

  /** A connection of this workspace; another workspace's connection is simply not found. */
  async get(workspaceId: string, id: string): Promise<StoredConnection | undefined> {
    const select = this.db.selectFrom('connections').selectAll()
    const row = await oneOfWorkspace(select, workspaceId, id).executeTakeFirst()
    return row && this.fromRow(row)
  }

  /**
   * One page of a workspace's connections, filtered, ordered and cut in the database: only the rows
   * returned are unsealed, so listing costs the same whatever the workspace holds.
   */
  async list(f: ConnectionListFilter): Promise<StoredConnection[]> {
    let q = this.db.selectFrom('connections').selectAll().where('workspace_id', '=', f.workspaceId)
    if (f.environment) q = q.where('environment', '=', f.environment)
    if (f.externalXref) q = q.where('external_xref', '=', f.externalXref)
    if (f.updatedGte) q = q.where('updated_at', '>=', f.updatedGte)
    const categories = f.categories ?? []
    if (categories.length > 0) {
      // `categories` holds a JSON array of strings; one holds a category when its JSON text (quotes
      // included) occurs in it. replace() is case-sensitive on both dialects, where LIKE is not on SQLite.
      q = q.where((eb) =>
        eb.or(
          categories.map((category) =>
            eb(sql<string>`replace(categories, ${JSON.stringify(category)}, '')`, '<>', eb.ref('categories')),
          ),
        ),
      )
    }
    const rows = await paged(q, { sort: f.sort, order: f.order, limit: f.limit, offset: f.offset }).execute()
    return rows.map((r) => this.fromRow(r))
  }

  async update(
    workspaceId: string,
    id: string,
    changes: ConnectionChanges,
    updatedAt: string,
  ): Promise<void> {
    const values: Partial<ConnectionTable> = {}
    if (changes.categories) values.categories = JSON.stringify(changes.categories)
    if (changes.permissions) values.permissions = JSON.stringify(changes.permissions)
    if ('external_xref' in changes) values.external_xref = changes.external_xref ?? null
    if (changes.environment) values.environment = changes.environment
    if (changes.credentials) values.auth_sealed = this.box.sealJson(changes.credentials)
    if (changes.settings) values.settings = JSON.stringify(changes.settings)
    if (changes.last_healthy_at) values.last_healthy_at = changes.last_healthy_at
    if (changes.last_unhealthy_at) values.last_unhealthy_at = changes.last_unhealthy_at
    if (changes.last_unhealthy_code) values.last_unhealthy_code = changes.last_unhealthy_code
    const contentChange = Object.keys(changes).some((k) => !k.startsWith('last_'))
    if (contentChange) values.updated_at = updatedAt
    // Nothing to write (a PATCH of `{}`, or of read-only fields only): an empty SET is not SQL.
    if (Object.keys(values).length === 0) return
    await oneOfWorkspace(this.db.updateTable('connections').set(values), workspaceId, id).execute()
  }

  async remove(workspaceId: string, id: string): Promise<boolean> {
    return removeFromWorkspace(this.db.deleteFrom('connections'), workspaceId, id)
  }
}

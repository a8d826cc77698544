/**
 * Table shapes shared by SQLite and PostgreSQL. Portable types only: timestamps are ISO-8601 text,
 * booleans are 0/1 integers (better-sqlite3 cannot bind booleans), JSON is text.
 */
export interface WorkspaceTable {
  id: string
  name: string
  /** Sealed (AES-256-GCM) workspace secret: signs webhooks and redirects. */
  secret_sealed: string
  slow_fields_opt_in: number
  created_at: string
  updated_at: string
}

export interface ApiKeyTable {
  id: string
  workspace_id: string
  created_at: string
  revoked_at: string | null
}

export interface ConnectionTable {
  id: string
  workspace_id: string
  integration_type: string
  categories: string
  permissions: string
  external_xref: string | null
  environment: string
  /** Sealed JSON of the credentials. */
  auth_sealed: string
  /** JSON of non-secret settings learned at verification (a project id, an organization id). */
  settings: string
  is_paused: number
  created_at: string
  updated_at: string
  last_healthy_at: string | null
  last_unhealthy_at: string | null
  last_unhealthy_code: string | null
}

export interface Database {
  workspaces: WorkspaceTable
  api_keys: ApiKeyTable
  connections: ConnectionTable
}

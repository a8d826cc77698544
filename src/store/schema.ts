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
  /** JSON array of origins (`https://app.example.com`) the authorization flow may redirect to. */
  allowed_redirect_origins: string
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

/** One recorded call: a tool call (`mcp`) or an API request (`inbound`); the SDK's `ApiCall`. */
export interface ApiCallTable {
  id: string
  workspace_id: string
  connection_id: string | null
  integration_type: string
  external_xref: string | null
  environment: string
  webhook_id: string | null
  type: string
  name: string
  method: string
  path: string
  status: string
  error: string | null
  size: number | null
  ip_address: string | null
  user_agent: string | null
  is_billable: number
  unified_response_time: number | null
  endapi_response_time: number | null
  created_at: string
}

/** A webhook subscription with its read position, leases and health (src/webhooks). */
export interface WebhookTable {
  id: string
  workspace_id: string
  connection_id: string
  integration_type: string
  object_type: string
  event: string
  hook_url: string
  interval: number
  page_max_limit: number
  fields: string | null
  /** JSON of the list filters applied to each read. */
  filters: string
  webhook_type: string
  environment: string
  include_all: number
  /** 1 once the initial read (backfill or baseline) is stored. */
  initial_done: number
  is_healthy: number
  is_paused: number
  /** `updated_gte` for the next read: the start of the last check whose changes were stored. */
  read_cursor: string | null
  checked_at: string | null
  next_check_at: string | null
  triggered_at: string | null
  poll_lease: string | null
  poll_lease_until: string | null
  delivery_lease: string | null
  delivery_lease_until: string | null
  delivery_failures: number
  read_failures: number
  /** Sealed JSON of the provider subscription of a native webhook (its id and our shared secret). */
  native_sealed: string | null
  /** A native webhook's last authenticated provider call, and its last subscription at the provider. */
  native_call_at: string | null
  native_subscribed_at: string | null
  created_at: string
  updated_at: string
}

/** What a fingerprint-compared webhook last saw of each record. */
export interface WebhookFingerprintTable {
  webhook_id: string
  record_id: string
  fingerprint: string
}

/** A page of changes to deliver; stored before the first attempt, kept until delivered or given up. */
export interface WebhookDeliveryTable {
  id: string
  webhook_id: string
  type: string
  /** The JSON text of `data` exactly as sent and signed. */
  data: string
  nonce: string
  record_count: number
  /** Order within the check that produced it (deliveries of one webhook go out in order). */
  position: number
  status: string
  attempts: number
  next_attempt_at: string
  last_status: number | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
}

/** A native webhook call's one-time token, remembered once the call was acknowledged. */
export interface NativeCallTokenTable {
  webhook_id: string
  /** sha256 (hex) of the provider's token. */
  token_hash: string
  /** ISO time after which the token may be forgotten (the call would be refused as stale). */
  keep_until: string
}

/** A provider cursor remembered by list position, shared by every process (src/integrations/cursors.ts). */
export interface ListCursorTable {
  /** sha256 (hex) of the connector's scope: the scope itself may hold query text. */
  scope_hash: string
  position: number
  cursor: string
  connection_id: string
  /** ISO time after which the cursor is ignored and may be deleted. */
  expires_at: string
}

/** One poll of a virtual webhook. */
export interface WebhookRunTable {
  id: string
  webhook_id: string
  due_at: string
  started_at: string
  finished_at: string
  runner: string
  outcome: string
  changes: number
}

/** A workspace notification (the SDK's `Notification`), such as WEBHOOK_UNHEALTHY. */
export interface NotificationTable {
  id: string
  workspace_id: string
  event: string
  description: string
  webhook_id: string | null
  connection_id: string | null
  integration_type: string | null
  created_at: string
  updated_at: string
}

export interface Database {
  workspaces: WorkspaceTable
  api_keys: ApiKeyTable
  connections: ConnectionTable
  api_calls: ApiCallTable
  webhooks: WebhookTable
  webhook_fingerprints: WebhookFingerprintTable
  webhook_deliveries: WebhookDeliveryTable
  webhook_runs: WebhookRunTable
  native_call_tokens: NativeCallTokenTable
  list_cursors: ListCursorTable
  notifications: NotificationTable
  auth_states: AuthStateTable
  oauth_apps: OAuthAppTable
  connection_locks: ConnectionLockTable
}

/** A pending authorization (the `state` sent to the provider): single-use, expiring, bound to a workspace. */
export interface AuthStateTable {
  /** sha256 (hex) of the state token. */
  id: string
  workspace_id: string
  integration_type: string
  /** Sealed JSON of the request (redirects, scopes, the PKCE verifier). */
  request_sealed: string
  attempts: number
  created_at: string
  expires_at: string
  used_at: string | null
}

/** A workspace's OAuth client at one provider. */
export interface OAuthAppTable {
  workspace_id: string
  integration_type: string
  client_id: string
  client_secret_sealed: string
  /** JSON of endpoint overrides (authorize_url, token_url, revoke_url, api_url): self-hosted or emulated providers. */
  endpoints: string
  created_at: string
  updated_at: string
}

/** A lease on refreshing one connection's token, so that one process refreshes while the others wait. */
export interface ConnectionLockTable {
  connection_id: string
  holder: string
  expires_at: string
}

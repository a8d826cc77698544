import { redactSecrets } from '../integrations/http-client.js'
import type { ConnectionSettings, Credentials } from '../integrations/types.js'

/** A connection as the store keeps it, with credentials already unsealed. */
export interface StoredConnection {
  readonly id: string
  readonly workspace_id: string
  readonly integration_type: string
  readonly categories: string[]
  readonly permissions: string[]
  readonly external_xref?: string
  readonly environment: string
  readonly is_paused: boolean
  readonly created_at: string
  readonly updated_at: string
  readonly last_healthy_at?: string
  readonly last_unhealthy_at?: string
  readonly last_unhealthy_code?: string
  readonly credentials: Credentials
  readonly settings: ConnectionSettings
}

/** Credentials secret whatever an integration declares (its OAuth tokens, client secret and that secret's fingerprint). */
export const ALWAYS_SECRET = ['access_token', 'refresh_token', 'client_secret', 'app_secret_sha256'] as const
const ALWAYS_HIDDEN: ReadonlySet<string> = new Set(ALWAYS_SECRET)

/** Keys the SDK's `Connection.auth` model knows; other non-secret auth fields are shown under `auth.meta`. */
const SDK_AUTH_KEYS = new Set([
  'access_token',
  'api_url',
  'app_id',
  'audience',
  'authorize_url',
  'client_id',
  'consumer_key',
  'name',
  'refresh_url',
  'state',
  'token_url',
  'user_id',
])

/**
 * The connection as the API shows it. Secret credentials never leave the server; non-secret ones
 * (a region, a self-hosted address) are shown so a caller can see where the connection points.
 */
export function connectionView(
  c: StoredConnection,
  secretFields: ReadonlySet<string>,
  integrationName?: string,
) {
  const auth: Record<string, unknown> = {}
  const meta: Record<string, string> = {}
  // A shown value never carries a secret one: a refresh refusal kept before refusals were redacted
  // (`refresh_error`) may quote the refresh token or client secret the token endpoint was sent.
  const secrets = [...secretFields, ...ALWAYS_SECRET].map((key) => c.credentials[key])
  for (const [key, value] of Object.entries(c.credentials)) {
    if (value === undefined || secretFields.has(key) || ALWAYS_HIDDEN.has(key)) continue
    const shown = redactSecrets(value, secrets)
    if (SDK_AUTH_KEYS.has(key)) auth[key] = shown
    else meta[key] = shown
  }
  if (Object.keys(meta).length > 0) auth.meta = meta
  return {
    id: c.id,
    workspace_id: c.workspace_id,
    integration_type: c.integration_type,
    ...(integrationName ? { integration_name: integrationName } : {}),
    categories: c.categories,
    permissions: c.permissions,
    ...(c.external_xref !== undefined ? { external_xref: c.external_xref } : {}),
    environment: c.environment,
    is_paused: c.is_paused,
    created_at: c.created_at,
    updated_at: c.updated_at,
    ...(c.last_healthy_at ? { last_healthy_at: c.last_healthy_at } : {}),
    ...(c.last_unhealthy_at ? { last_unhealthy_at: c.last_unhealthy_at } : {}),
    ...(c.last_unhealthy_code ? { last_unhealthy_code: c.last_unhealthy_code } : {}),
    ...(Object.keys(auth).length > 0 ? { auth } : {}),
  }
}

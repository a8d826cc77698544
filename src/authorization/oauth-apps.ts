import type { SecretBox } from '../crypto/keys.js'
import { type Db, nowIso } from '../store/index.js'

/** Where a provider's OAuth endpoints and API are, when not at the integration's defaults. */
export interface OAuthEndpoints {
  readonly authorize_url?: string
  readonly token_url?: string
  readonly revoke_url?: string
  /** Stored on each new connection as its `api_url` (the provider API base, e.g. an emulator). */
  readonly api_url?: string
}

export const ENDPOINT_NAMES = ['authorize_url', 'token_url', 'revoke_url', 'api_url'] as const

/** A workspace's OAuth client at one provider (its own app, so consent screens show its name). */
export interface OAuthApp {
  readonly workspaceId: string
  readonly integrationType: string
  readonly clientId: string
  readonly clientSecret: string
  readonly endpoints: OAuthEndpoints
}

/** OAuth clients per workspace and integration; client secrets are sealed at rest. */
export class OAuthAppStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  async get(workspaceId: string, integrationType: string): Promise<OAuthApp | undefined> {
    const row = await this.db
      .selectFrom('oauth_apps')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('integration_type', '=', integrationType)
      .executeTakeFirst()
    if (!row) return undefined
    return {
      workspaceId,
      integrationType,
      clientId: row.client_id,
      clientSecret: this.box.open(row.client_secret_sealed),
      endpoints: JSON.parse(row.endpoints) as OAuthEndpoints,
    }
  }

  async put(app: OAuthApp): Promise<void> {
    const now = nowIso()
    const values = {
      client_id: app.clientId,
      client_secret_sealed: this.box.seal(app.clientSecret),
      endpoints: JSON.stringify(app.endpoints),
      updated_at: now,
    }
    await this.db
      .insertInto('oauth_apps')
      .values({
        workspace_id: app.workspaceId,
        integration_type: app.integrationType,
        created_at: now,
        ...values,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'integration_type']).doUpdateSet(values))
      .execute()
  }

  async remove(workspaceId: string, integrationType: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('oauth_apps')
      .where('workspace_id', '=', workspaceId)
      .where('integration_type', '=', integrationType)
      .executeTakeFirst()
    return Number(r.numDeletedRows) > 0
  }
}

import type { SecretBox } from '../crypto/keys.js'
import { badRequest } from '../errors.js'
import { withoutTrailingSlashes } from '../integrations/trailing-slashes.js'
import { type AllowedAddress, outboundUrlProblem } from '../outbound/index.js'
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

/**
 * The endpoints of an OAuth app as given, checked with the outbound address policy: the server posts
 * codes and refresh tokens to `token_url` and `revoke_url` and calls `api_url`, so none may point into a
 * refused range; `authorize_url` is where end users' browsers are sent from this host, so it must be https
 * (http only for an address the operator allows), or the shared host becomes an open redirect. A problem
 * is thrown as a 400 naming the field.
 */
export function oauthEndpointsFrom(
  given: Readonly<Record<string, string | undefined>>,
  allowed: readonly AllowedAddress[],
): OAuthEndpoints {
  const endpoints: Record<string, string> = {}
  for (const name of ENDPOINT_NAMES) {
    const v = given[name]
    if (v === undefined) continue
    const problem = outboundUrlProblem(name, v, allowed, { httpsOnly: name === 'authorize_url' })
    if (problem) throw badRequest(problem)
    // api_url is a base that paths are appended to; OAuth endpoints are used as given, since some
    // providers (PostHog: `/oauth/token/`) answer only at their trailing-slash address.
    endpoints[name] = name === 'api_url' ? withoutTrailingSlashes(v) : v
  }
  return endpoints
}

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

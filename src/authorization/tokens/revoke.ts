import type { ConnectionStore } from '../../connections/index.js'
import { integrationOf } from '../../integrations/registry.js'
import type { OAuthAppStore } from '../oauth-apps.js'
import { oauthSpecOf } from '../oauth-spec.js'
import { oauthClientFor, tokenAddresses } from './pinned.js'
import type { TokenClient } from './token-client.js'

/**
 * Before a connection is removed: revoke its grant at the provider (the refresh token, which ends the
 * access tokens with it at Google and most providers). Best effort: the connection and its stored
 * credentials go either way, so a provider outage cannot keep a user from disconnecting.
 */
export function revokeBeforeRemove(d: {
  store: ConnectionStore
  oauthApps: OAuthAppStore
  tokens: TokenClient
  onError: (err: unknown, connectionId: string) => void
}) {
  return async (workspaceId: string, id: string): Promise<void> => {
    try {
      const connection = await d.store.get(workspaceId, id)
      const integration = connection && integrationOf(connection.integration_type)
      const spec = integration && oauthSpecOf(integration)
      if (!connection || !spec) return
      const app = await d.oauthApps.get(workspaceId, connection.integration_type)
      const url = tokenAddresses(connection.credentials, spec, app).revokeUrl
      const token = connection.credentials.refresh_token ?? connection.credentials.access_token
      if (!url || !token) return
      await d.tokens.revoke(
        workspaceId,
        url,
        oauthClientFor(connection.credentials, spec, app, 'revoke'),
        token,
      )
    } catch (err) {
      d.onError(err, id)
    }
  }
}

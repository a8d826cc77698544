import { ApiError } from '../errors.js'
import type { OutboundCall } from './provider-transport.js'

/**
 * What a token request (an OAuth code exchange, refresh or revocation, a client credentials grant) adds to
 * its call: one of its workspace's provider slots, like every other call made for the workspace, so that a
 * workspace at its bound (UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY) cannot send more through token requests.
 * Not one of a connection's: at most one such request runs per connection at a time (a refresh is shared by
 * every request of the connection, a grant by every connection of the client), so a connection's bound
 * would only queue the token its own calls are waiting for behind those calls; and the code exchange has
 * no connection yet.
 *
 * The request waits for the slot at most `timeoutMs`, the time it may then wait for the endpoint's answer:
 * it is shared by every caller that needs the token, so no one caller's deadline or departure may end its
 * wait, and a refresh must end within the lease that keeps other processes from refreshing the same token.
 */
export function tokenRequestSlot(
  workspaceKey: string | undefined,
  timeoutMs: number,
): Pick<OutboundCall, 'workspaceKey' | 'wait'> {
  if (workspaceKey === undefined) return {}
  return {
    workspaceKey,
    wait: {
      until: Date.now() + timeoutMs,
      expired: () =>
        new ApiError(
          429,
          `none of this workspace's provider calls ended within ${timeoutMs} ms, the longest a token request ` +
            'waits for one of its slots (UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY); retry later',
          { 'retry-after': '1' },
        ),
    },
  }
}

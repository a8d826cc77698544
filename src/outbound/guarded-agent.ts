import { isIP } from 'node:net'
import { Agent, buildConnector } from 'undici'
import { type GuardedRange, guardedLookup, policyRefusal, refusedReason } from './address-policy.js'

export interface GuardedAgentOptions {
  readonly allowAddresses: readonly GuardedRange[]
  /** Socket connect timeout. */
  readonly connectTimeoutMs: number
  /** Sockets per origin. */
  readonly connections: number
  readonly keepAliveTimeoutMs?: number
}

/**
 * An undici Agent whose every new socket is checked against the address policy at connect time: a
 * literal address before connecting (Node skips the lookup for those), a name after DNS resolution
 * (guardedLookup), so no rebinding window exists between a check and the connection.
 */
export function guardedAgent(options: GuardedAgentOptions): Agent {
  const connect = buildConnector({
    lookup: guardedLookup(options.allowAddresses),
    timeout: options.connectTimeoutMs,
  })
  return new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connections: options.connections,
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, '')
      const reason = isIP(host) ? refusedReason(host, options.allowAddresses) : undefined
      if (reason) return callback(policyRefusal(`refused to connect to ${host}: ${reason}`), null)
      connect(opts, callback)
    },
  })
}

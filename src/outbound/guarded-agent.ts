import { isIP } from 'node:net'
import { Agent, buildConnector } from 'undici'
import { type AllowedAddress, guardedLookup, policyRefusal, refusedReason } from './address-policy.js'

export interface GuardedAgentOptions {
  readonly allowAddresses: readonly AllowedAddress[]
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
  const allowed = options.allowAddresses
  const connectorFor = (port: number | undefined) =>
    buildConnector({ lookup: guardedLookup(allowed, port), timeout: options.connectTimeoutMs })
  // An allowed endpoint is one port: a name's lookup must know the port it connects to. Without endpoints
  // the port changes nothing, and one connector serves every port.
  const byPort = allowed.some((a) => a.includes(':'))
  const anyPort = connectorFor(undefined)
  const connectors = new Map<number, buildConnector.connector>()
  const connectorAt = (port: number) => {
    if (!byPort) return anyPort
    let connector = connectors.get(port)
    if (!connector) {
      connector = connectorFor(port)
      connectors.set(port, connector)
    }
    return connector
  }
  return new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connections: options.connections,
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, '')
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80)
      const reason = isIP(host) ? refusedReason(host, allowed, port) : undefined
      if (reason) return callback(policyRefusal(`refused to connect to ${host}: ${reason}`), null)
      connectorAt(port)(opts, callback)
    },
  })
}

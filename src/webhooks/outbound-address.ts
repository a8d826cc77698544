import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'

/** Address ranges a hook_url may not reach unless the operator allows them (a receiver inside their network). */
export const GUARDED_RANGES = ['loopback', 'private', 'link-local'] as const
export type GuardedRange = (typeof GUARDED_RANGES)[number]

function blockList(v4: readonly string[], v6: readonly string[]): BlockList {
  const list = new BlockList()
  for (const cidr of v4) {
    const [net, bits] = cidr.split('/')
    list.addSubnet(net!, Number(bits), 'ipv4')
  }
  for (const cidr of v6) {
    const [net, bits] = cidr.split('/')
    list.addSubnet(net!, Number(bits), 'ipv6')
  }
  return list
}

const RANGES: Record<GuardedRange, BlockList> = {
  loopback: blockList(['127.0.0.0/8', '0.0.0.0/8'], ['::1/128', '::/128']),
  private: blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'], ['fc00::/7']),
  // 169.254.169.254 is the cloud metadata service: the reason this guard exists.
  'link-local': blockList(['169.254.0.0/16'], ['fe80::/10']),
}

/** Multicast, broadcast and reserved space never hold a webhook receiver. */
const NEVER = blockList(['224.0.0.0/4', '240.0.0.0/4'], ['ff00::/8'])

/** `::ffff:10.0.0.1` reaches 10.0.0.1: judge the IPv4 address it carries. */
function unmapped(ip: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) return { address: mapped[1]!, family: 'ipv4' }
  return { address: ip, family: isIP(ip) === 6 ? 'ipv6' : 'ipv4' }
}

/** Why an address may not be reached, or undefined when it may. */
export function refusedReason(ip: string, allowed: readonly GuardedRange[]): string | undefined {
  const { address, family } = unmapped(ip)
  if (NEVER.check(address, family)) return `${ip} is a multicast or reserved address`
  for (const range of GUARDED_RANGES) {
    if (RANGES[range].check(address, family) && !allowed.includes(range)) {
      return `${ip} is in a ${range} range; the operator can allow it with UNIGATE_WEBHOOK_ALLOW_ADDRESSES=${range}`
    }
  }
  return undefined
}

/**
 * Checks what can be checked without DNS when a webhook is saved: an http(s) URL, and no literal address
 * or `localhost` in a refused range. Names are checked again, after resolution, at every delivery.
 */
export function hookUrlProblem(value: string, allowed: readonly GuardedRange[]): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `hook_url: '${value}' is not a URL`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'hook_url must be an http or https URL'
  if (url.username || url.password) return 'hook_url must not carry credentials'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(host)
    ? host
    : /^localhost\.?$/i.test(host) || host.endsWith('.localhost')
      ? '127.0.0.1'
      : undefined
  if (literal === undefined) return undefined
  const reason = refusedReason(literal, allowed)
  return reason && `hook_url: ${reason}`
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * A `lookup` for outgoing sockets that refuses guarded addresses after DNS resolution, so a name that
 * resolves (or re-resolves) to an internal address cannot be used to reach it.
 */
export function guardedLookup(allowed: readonly GuardedRange[]) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      const list = addresses as LookupAddress[]
      for (const a of list) {
        const reason = refusedReason(a.address, allowed)
        if (reason) {
          const refused = Object.assign(new Error(`refused to connect to ${hostname}: ${reason}`), {
            code: 'EADDRREFUSED_BY_POLICY',
          })
          return callback(refused, [])
        }
      }
      if (options.all) return callback(null, list)
      const first = list[0]
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), [])
      callback(null, first.address, first.family)
    })
  }
}

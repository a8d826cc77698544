import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'

/**
 * The one address policy for every request the server makes on a caller's behalf: provider base
 * addresses, OAuth app addresses, webhook receivers, passthrough. Loopback, private and link-local
 * targets are refused unless the operator allows the range (UNIGATE_OUTBOUND_ALLOW_ADDRESSES): a
 * self-hosted provider on a private network is a real use, the cloud metadata service is not.
 */
export const GUARDED_RANGES = ['loopback', 'private', 'link-local'] as const
export type GuardedRange = (typeof GUARDED_RANGES)[number]

/** One address and port allowed in a guarded range (`127.0.0.1:8123`, `[::1]:8123`), not the whole range. */
export type AllowedEndpoint = `${string}:${number}`

/**
 * What the operator allows: whole ranges, or single endpoints. A range opens every port of every address in
 * it, the server's own and its neighbours' included; an endpoint opens one service (the demo's emulators).
 */
export type AllowedAddress = GuardedRange | AllowedEndpoint

/** `ip:port` as an allowed endpoint is written and compared: IPv6 in brackets, in the URL parser's form. */
function endpointOf(ip: string, port: number): AllowedEndpoint {
  return isIP(ip) === 6 ? `[${new URL(`http://[${ip}]`).hostname.slice(1, -1)}]:${port}` : `${ip}:${port}`
}

/**
 * An allowed endpoint as written in UNIGATE_OUTBOUND_ALLOW_ADDRESSES (a literal address and a port, IPv6
 * in brackets), in the form refusedReason compares; undefined when the text is not one.
 */
export function allowedEndpoint(text: string): AllowedEndpoint | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):(\d{1,5})$/.exec(text)
  const ip = m?.[1] ?? m?.[2]
  const port = Number(m?.[3])
  if (!ip || !isIP(ip) || !(port >= 1 && port <= 65_535)) return undefined
  return endpointOf(ip, port)
}

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
  // 198.18.0.0/15 (RFC 2544 benchmarking) and the deprecated site-local fec0::/10 are used as internal
  // networks in practice; 64:ff9b:1::/48 is local-use NAT64 (RFC 8215), translated inside the network.
  private: blockList(
    ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15'],
    ['fc00::/7', 'fec0::/10', '64:ff9b:1::/48'],
  ),
  // 169.254.169.254 is the cloud metadata service: the reason this policy exists.
  'link-local': blockList(['169.254.0.0/16'], ['fe80::/10']),
}

/** Multicast, broadcast, documentation and reserved space never hold a provider or a receiver. */
const NEVER = blockList(
  ['224.0.0.0/4', '240.0.0.0/4', '192.0.0.0/24', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
  ['ff00::/8', '100::/64', '2001:db8::/32'],
)

/** The 32-bit IPv4 address in the low bits of an IPv6 address, as dotted quad. */
function ipv4At(groups: readonly number[], at: number): string {
  const hi = groups[at]!
  const lo = groups[at + 1]!
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
}

/** The eight 16-bit groups of an IPv6 address (with any embedded dotted quad folded in). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase()
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length
  return [...left, ...Array<string>(zeros).fill('0'), ...right].map((g) => Number.parseInt(g, 16) || 0)
}

/**
 * IPv6 forms that carry an IPv4 address the packet really reaches: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). Each is judged by that address,
 * so `::ffff:169.254.169.254` or `64:ff9b::a9fe:a9fe` cannot reach the metadata service either.
 */
function embeddedIpv4(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined
  const g = ipv6Groups(ip)
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroTo(5) && g[5] === 0xffff) return ipv4At(g, 6)
  if (zeroTo(6) && (g[6] !== 0 || g[7]! > 1)) return ipv4At(g, 6)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4At(g, 6)
  if (g[0] === 0x2002) return ipv4At(g, 1)
  return undefined
}

/**
 * Why an address may not be reached, or undefined when it may. `port`, the port connected to, lets an
 * endpoint the operator allowed through; without it only whole ranges count. `resolvedFrom`, a name the
 * address was resolved from: the reason then names the range, not the address, since a key holder who saved
 * an internal name would otherwise learn the internal address it resolves to.
 */
export function refusedReason(
  ip: string,
  allowed: readonly AllowedAddress[],
  port?: number,
  resolvedFrom?: string,
): string | undefined {
  const inner = embeddedIpv4(ip)
  if (inner !== undefined) {
    const why = refusalOf(inner, allowed, port)
    if (why === undefined) return undefined
    return resolvedFrom === undefined
      ? `${ip} carries ${inner} ${why}`
      : `an address ${resolvedFrom} resolves to carries an IPv4 address that ${why}`
  }
  const why = refusalOf(ip, allowed, port)
  if (why === undefined) return undefined
  return resolvedFrom === undefined ? `${ip} ${why}` : `an address ${resolvedFrom} resolves to ${why}`
}

/** What refuses a plain address (no IPv4 address carried in it), said of the address; undefined when none. */
function refusalOf(ip: string, allowed: readonly AllowedAddress[], port?: number): string | undefined {
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4'
  if (NEVER.check(ip, family)) return 'is a multicast, documentation or reserved address'
  if (port !== undefined && allowed.includes(endpointOf(ip, port))) return undefined
  for (const range of GUARDED_RANGES) {
    if (RANGES[range].check(ip, family) && !allowed.includes(range)) {
      return `is in a ${range} range; the operator can allow it with UNIGATE_OUTBOUND_ALLOW_ADDRESSES=${range}`
    }
  }
  return undefined
}

/** The address a URL's host names without DNS: a literal address, or loopback for `localhost`. */
function literalAddressOf(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) return host
  if (/^localhost\.?$/i.test(host) || /\.localhost\.?$/i.test(host)) return '127.0.0.1'
  return undefined
}

/** The port a URL connects to. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

/** Why a URL's literal host may not be reached (names are judged after resolution, on connect). */
export function literalHostRefusal(url: URL, allowed: readonly AllowedAddress[]): string | undefined {
  const literal = literalAddressOf(url)
  return literal === undefined ? undefined : refusedReason(literal, allowed, portOf(url))
}

export interface UrlRules {
  /** https only, except for a literal address or `localhost` in a range the operator allows. */
  readonly httpsOnly?: boolean
}

/**
 * What can be checked without DNS when an address is saved: an http(s) URL without credentials whose
 * literal host (or `localhost`) is not in a refused range. `name` is the parameter, for the message.
 */
export function outboundUrlProblem(
  name: string,
  value: string,
  allowed: readonly AllowedAddress[],
  rules: UrlRules = {},
): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `${name}: '${value.slice(0, 200)}' is not a URL; give an absolute http(s) address`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${name} must be an http or https URL`
  if (url.username || url.password) return `${name} must not carry credentials`
  const literal = literalAddressOf(url)
  const reason = literal === undefined ? undefined : refusedReason(literal, allowed, portOf(url))
  if (reason) return `${name}: ${reason}`
  if (rules.httpsOnly && url.protocol === 'http:' && literal === undefined) {
    return `${name} must be an https URL (http only for an address the operator allows)`
  }
  return undefined
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

export const POLICY_REFUSAL_CODE = 'EADDRREFUSED_BY_POLICY'

export function policyRefusal(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: POLICY_REFUSAL_CODE })
}

/**
 * A `lookup` for outgoing sockets that refuses guarded addresses after DNS resolution, so a name that
 * resolves (or re-resolves) to an internal address cannot be used to reach it: the address connected to is
 * the address checked. `port` is the port the socket connects to, for allowed endpoints.
 */
export function guardedLookup(allowed: readonly AllowedAddress[], port?: number) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      const list = addresses as LookupAddress[]
      for (const a of list) {
        const reason = refusedReason(a.address, allowed, port, hostname)
        if (reason) return callback(policyRefusal(`refused to connect to ${hostname}: ${reason}`), [])
      }
      if (options.all) return callback(null, list)
      const first = list[0]
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), [])
      callback(null, first.address, first.family)
    })
  }
}

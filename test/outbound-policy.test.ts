import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { type LocalServer, rawRequest, startLocalServer, storeConnection } from './support/local-server.js'

const outbound = testConfig('sqlite').outbound

/** Waits for a condition the test cannot await directly (requests arriving at a server). */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('provider addresses without an allowance', () => {
  let h: Harness
  let internal: LocalServer
  beforeAll(async () => {
    internal = await startLocalServer()
    h = await startHarness('sqlite', { outbound: { ...outbound, allowAddresses: [] } })
  })
  afterAll(async () => {
    await h?.close()
    await internal?.close()
  })

  it.each([
    ['loopback', (port: number) => `http://127.0.0.1:${port}`, /127\.0\.0\.1 is in a loopback range/],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}`, /loopback/],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}`, /localhost.*loopback/],
    ['the metadata service', () => 'http://169.254.169.254', /169\.254\.169\.254 is in a link-local range/],
  ])('refuses %s for unified reads and passthrough, and nothing reaches it', async (_kind, address, why) => {
    const conn = await storeConnection(h, address(internal.port))
    const unified = await h.api<{ message: string }>('GET', `/analytics/${conn}/property/1`)
    const passthrough = await h.api<{ message: string }>('GET', `/passthrough/${conn}/latest/meta-data`)
    for (const res of [unified, passthrough]) {
      expect(res.status).toBe(502)
      expect(res.body.message).toMatch(/refused by the outbound address policy/)
      expect(res.body.message).toMatch(why)
      expect(res.body.message).toContain('UNIGATE_OUTBOUND_ALLOW_ADDRESSES')
      expect(res.text).not.toContain('internal secret')
    }
    expect(internal.seen).toEqual([])
  })
})

describe('provider answers and limits (loopback allowed)', () => {
  let h: Harness
  let internal: LocalServer
  let provider: LocalServer
  let holding = true
  const held: ServerResponse[] = []
  const active = new Map<string, number>()
  const maxActive = new Map<string, number>()
  const big = JSON.stringify({ detail: 'x'.repeat(10_000) })

  beforeAll(async () => {
    internal = await startLocalServer()
    provider = await startLocalServer((req, res) => {
      const url = req.url ?? ''
      if (url.startsWith('/redirect/')) {
        res.writeHead(302, { location: `${internal.url}/latest/meta-data` }).end('{"detail":"moved"}')
      } else if (url.startsWith('/big/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(big)
      } else if (url.startsWith('/cookie/')) {
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'set-cookie': ['session=provider; Path=/'],
            'set-cookie2': 'old=1',
            'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
            'alt-svc': 'h3=":443"; ma=86400',
            'clear-site-data': '"cache", "cookies", "storage"',
            'www-authenticate': 'Bearer error="invalid_token", Basic realm="provider"',
            'x-content-type-options': 'none',
            connection: 'keep-alive, X-Hop-Only',
            'x-hop-only': 'for the next hop',
            'x-provider': 'kept',
          })
          .end('{}')
      } else if (url.startsWith('/bearer/')) {
        res
          .writeHead(401, {
            'content-type': 'application/json',
            'www-authenticate': 'Bearer realm="api", error="invalid_token", error_description="expired"',
          })
          .end('{}')
      } else if (url.startsWith('/count/')) {
        let bytes = 0
        req.on('data', (c: Buffer) => {
          bytes += c.length
        })
        req.on('end', () =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"bytes":${bytes}}`),
        )
      } else if (url.startsWith('/hold/')) {
        // Counts concurrent requests per connection (its base path) and holds them until released.
        const lane = url.split('/')[2] ?? ''
        active.set(lane, (active.get(lane) ?? 0) + 1)
        maxActive.set(lane, Math.max(maxActive.get(lane) ?? 0, active.get(lane)!))
        res.on('close', () => active.set(lane, active.get(lane)! - 1))
        if (holding) held.push(res)
        else res.end('{}')
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1","name":"p"}')
      }
    })
    h = await startHarness('sqlite', {
      outbound: { ...outbound, maxBodyBytes: 4096, connectionConcurrency: 2, connectionQueue: 3 },
    })
  })
  afterAll(async () => {
    for (const res of held.splice(0)) res.end('{}')
    await h?.close()
    await provider?.close()
    await internal?.close()
  })
  beforeEach(() => {
    provider.seen.length = 0
    internal.seen.length = 0
  })

  it('never follows a provider redirect: a unified call answers 502 and nothing reaches the target', async () => {
    const conn = await storeConnection(h, `${provider.url}/redirect`)
    const unified = await h.api<{ message: string }>('GET', `/analytics/${conn}/property/1`)
    expect(unified.status).toBe(502)
    expect(unified.body.message).toContain('answered 302')
    expect(unified.text).not.toContain('internal secret')
    // Passthrough relays the provider's own answer, unfollowed.
    const passthrough = await h.api('GET', `/passthrough/${conn}/x`)
    expect(passthrough.status).toBe(302)
    expect(passthrough.text).not.toContain('internal secret')
    expect(provider.seen).toHaveLength(2)
    expect(internal.seen).toEqual([])
  })

  it('answers 502 naming the cap for a unified call whose provider answer is too large; passthrough streams it', async () => {
    const conn = await storeConnection(h, `${provider.url}/big`)
    const unified = await h.api<{ message: string }>('GET', `/analytics/${conn}/property/1`)
    expect(unified.status).toBe(502)
    expect(unified.body.message).toMatch(/larger than 4096 bytes.*UNIGATE_PROVIDER_MAX_BODY_BYTES/)
    const passthrough = await h.api('GET', `/passthrough/${conn}/api/projects/1/`)
    expect(passthrough.status).toBe(200)
    expect(passthrough.text).toBe(big)
  })

  it('streams a passthrough request body instead of buffering it, so the JSON body limit does not apply', async () => {
    const conn = await storeConnection(h, `${provider.url}/count`)
    const size = h.services.config.bodyLimitBytes * 2
    const res = await h.api<{ bytes: number }>('POST', `/passthrough/${conn}/upload`, {
      body: 'x'.repeat(size),
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect(res.status).toBe(200)
    expect(res.body.bytes).toBe(size)
  })

  it("counts a connection's provider calls as its own (its slots) and its workspace's (memory shedding)", async () => {
    const conn = await storeConnection(h, `${provider.url}/cookie`)
    const resolved = await h.services.resolver.resolve(h.workspaceId, conn)
    expect(resolved?.client.owner).toEqual({ limitKey: conn, workspaceKey: h.workspaceId })
    expect(resolved?.client.forOperation().owner).toEqual({ limitKey: conn, workspaceKey: h.workspaceId })
  })

  it("drops from passthrough answers what speaks for the provider's origin, and hop-by-hop headers, keeping the rest", async () => {
    const conn = await storeConnection(h, `${provider.url}/cookie`)
    const res = await h.api('GET', `/passthrough/${conn}/x`)
    expect(res.status).toBe(200)
    expect(res.headers['x-provider']).toBe('kept')
    // Relayed, each would speak for Unigate's origin: its cookies, its HTTPS pinning, its alternative
    // services, a browser's stored data for it, a login prompt for it.
    for (const name of [
      'set-cookie',
      'set-cookie2',
      'strict-transport-security',
      'alt-svc',
      'clear-site-data',
      'www-authenticate',
    ])
      expect(res.headers[name], name).toBeUndefined()
    // Named in the provider's `connection` header, it was meant for the hop to Unigate only.
    expect(res.headers['x-hop-only']).toBeUndefined()
    // Unigate's own, which the provider's `none` must not replace.
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it("passes on a Bearer challenge, which names the token's error and prompts for nothing", async () => {
    const conn = await storeConnection(h, `${provider.url}/bearer`)
    const res = await h.api('GET', `/passthrough/${conn}/x`)
    expect(res.status).toBe(401)
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="api", error="invalid_token", error_description="expired"',
    )
  })

  it.each([
    '../../admin',
    '%2e%2e/%2e%2e/admin',
    '%2E./admin',
    '..%2Fadmin',
    'users/..%5C..%5Cadmin',
    '..\\..\\admin',
    '%252e%252e/admin',
    encodeURIComponent('/../../admin'),
  ])('answers 400 for passthrough path %s and the provider never sees it', async (path) => {
    const conn = await storeConnection(h, `${provider.url}/api/v1`)
    const res = await rawRequest(h, 'GET', `/passthrough/${conn}/${path}`)
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body).message).toMatch(/^path '.*' leaves the connection's base address/)
    expect(provider.seen).toEqual([])
  })

  it('resolves dot-segments that stay below the base before forwarding', async () => {
    const conn = await storeConnection(h, `${provider.url}/api/v1`)
    const res = await rawRequest(h, 'GET', `/passthrough/${conn}/users/./me/%2e%2e/list`)
    expect(res.status).toBe(200)
    expect(provider.seen.map((r) => r.url)).toEqual(['/api/v1/users/list'])
  })

  it('limits concurrent provider calls per connection, answers 429 past the queue, and serves other connections', async () => {
    const busy = await storeConnection(h, `${provider.url}/hold/a`)
    const other = await storeConnection(h, `${provider.url}/free`)
    const limit = 2
    const queue = 3
    const results: { status: number; retryAfter?: string; message?: string }[] = []
    const calls = Array.from({ length: limit + queue + 1 }, () =>
      h.api<{ message: string }>('GET', `/passthrough/${busy}/x`).then((r) => {
        results.push({
          status: r.status,
          retryAfter: r.headers['retry-after'] as string | undefined,
          message: r.body.message,
        })
      }),
    )
    await until('the provider to hold the limit and the rest to queue or be refused', () => {
      const load = h.services.transport.limiter.load(busy)
      return held.length === limit && load.waiting === queue && results.length === 1
    })
    expect(results[0]).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) })
    expect(results[0]?.message).toMatch(/UNIGATE_PROVIDER_CONNECTION_CONCURRENCY=2/)

    // A unified call on the saturated connection is refused the same way...
    const unified = await h.api<{ message: string }>('GET', `/analytics/${busy}/property/1`)
    expect(unified.status).toBe(429)
    expect(unified.headers['retry-after']).toMatch(/^\d+$/)
    // ...while another connection to the same provider origin is served.
    const served = await h.api('GET', `/passthrough/${other}/x`)
    expect(served.status).toBe(200)
    expect(provider.seen.filter((r) => r.url.startsWith('/free/'))).toHaveLength(1)

    holding = false
    for (const res of held.splice(0)) res.end('{}')
    await Promise.all(calls)
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429])
    expect(maxActive.get('a')).toBe(limit)
    expect(provider.seen.filter((r) => r.url.startsWith('/hold/a/'))).toHaveLength(limit + queue)
  })
})

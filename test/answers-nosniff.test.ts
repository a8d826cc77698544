import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { type LocalServer, startLocalServer, storeConnection } from './support/local-server.js'

/**
 * Every answer the server writes carries `x-content-type-options: nosniff`, whichever part writes it: an
 * error that repeats the caller's input, or a provider's relayed body, must not be read by a browser as
 * another type than the one sent.
 */
describe('x-content-type-options on every answer', () => {
  let h: Harness
  let provider: LocalServer
  beforeAll(async () => {
    // A provider that answers HTML without saying so: the case sniffing exists for.
    provider = await startLocalServer((_req, res) => res.end('<html><script>alert(1)</script></html>'))
    h = await startHarness('sqlite')
  })
  afterAll(async () => {
    await h?.close()
    await provider?.close()
  })

  it.each([
    ['a route that does not exist', 'GET', '/no/such/<b>route</b>', undefined, 404],
    ['no key', 'GET', '/unified/connection', null, 401],
    ['an unknown parameter', 'GET', '/unified/connection?<b>x</b>=1', undefined, 400],
    ['a success', 'GET', '/unified/connection', undefined, 200],
    ['the health check', 'GET', '/health', undefined, 200],
  ] as const)('on %s', async (_case, method, path, key, status) => {
    const res = await h.api(method, path, key === null ? { key: null } : {})
    expect(res.status).toBe(status)
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('on a relayed provider answer, by the passthrough door and by the routes', async () => {
    const conn = await storeConnection(h, provider.url)
    // Bodiless: the door (passthrough-door.ts); with a body: Fastify's passthrough routes.
    const door = await h.api('GET', `/passthrough/${conn}/page`)
    const routed = await h.api('POST', `/passthrough/${conn}/page`, { body: { a: 1 } })
    for (const res of [door, routed]) {
      expect(res.status).toBe(200)
      expect(res.text).toContain('<script>')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
    }
    expect(provider.seen.map((r) => r.method)).toEqual(['GET', 'POST'])
  })
})

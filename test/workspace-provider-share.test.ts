import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'

/**
 * A provider origin's sockets are shared by every workspace. Each connection runs a bounded number of calls,
 * but a key holder can make many connections; UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY bounds a workspace's
 * calls over all of them, so its relays to callers that read slowly cannot hold every socket of an origin
 * while other workspaces' calls to that provider wait behind them.
 */
describe("a workspace's provider calls are bounded over all its connections", () => {
  let provider: Server
  let providerUrl: string
  let h: Harness
  // Relayed answers the provider has begun and holds open until the test lets them end.
  const held: ServerResponse[] = []
  const seen: string[] = []

  beforeAll(async () => {
    provider = createServer((req, res) => {
      if (req.url?.endsWith('/token')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ name: 'x', abilities: ['*'] }))
        return
      }
      seen.push(req.url ?? '')
      if (req.url?.endsWith('/held')) {
        // Begun, then held: the relay streams it to its caller for as long as it lasts.
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        res.write('first bytes')
        held.push(res)
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
    h = await startHarness('sqlite', {
      outbound: { ...testConfig('sqlite').outbound, workspaceConcurrency: 2, workspaceQueue: 0 },
    })
  })
  afterAll(async () => {
    for (const res of held) res.end()
    await h?.close()
    provider?.closeAllConnections()
    await new Promise((resolve) => provider?.close(resolve))
  })

  const connectionOf = async (key: string) => {
    const c = await h.api<{ id: string }>('POST', '/unified/connection', {
      key,
      body: {
        integration_type: 'fathom',
        auth: { api_key: 'a-valid-token-1', meta: { api_url: providerUrl } },
      },
    })
    expect(c.status, c.text).toBe(200)
    return c.body.id
  }

  it('a third relay of the workspace is a 429 naming the limit; another workspace goes on', async () => {
    const [first, second, third] = [
      await connectionOf(h.apiKey),
      await connectionOf(h.apiKey),
      await connectionOf(h.apiKey),
    ]
    // Two relays of two connections, their answers begun and still streaming.
    const relays = await Promise.all(
      [first, second].map((id) =>
        request(`${h.url}/passthrough/${id}/held`, { headers: { authorization: `Bearer ${h.apiKey}` } }),
      ),
    )
    for (const relay of relays) expect(relay.statusCode).toBe(200)

    const refused = await h.api<{ message: string }>('GET', `/passthrough/${third}/other`)
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.body.message).toBe(
      'this workspace already has 2 provider calls running and 0 waiting, its limit ' +
        '(UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY=2, UNIGATE_PROVIDER_WORKSPACE_QUEUE=0); retry later',
    )
    // Nothing of it reached the provider.
    expect(seen.filter((path) => path.endsWith('/other'))).toEqual([])

    // Another workspace's relay to the same provider goes through meanwhile.
    const other = await h.otherWorkspace()
    const elsewhere = await h.api('GET', `/passthrough/${await connectionOf(other.apiKey)}/other`, {
      key: other.apiKey,
    })
    expect(elsewhere.status, elsewhere.text).toBe(200)
    expect(elsewhere.text).toBe('{"ok":true}')

    // Once the held answers end, the workspace's calls go again.
    for (const res of held.splice(0)) res.end(' last bytes')
    for (const relay of relays) expect(await relay.body.text()).toBe('first bytes last bytes')
    const again = await h.api('GET', `/passthrough/${third}/other`)
    expect(again.status, again.text).toBe(200)
  })
})

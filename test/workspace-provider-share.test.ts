import { createServer, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testConfig } from './support/config.js'
import { answeredFathomVerification } from './support/fathom-stand-in.js'
import { type ApiResponse, type Harness, startHarness } from './support/harness.js'

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
      if (answeredFathomVerification(req, res)) return
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
      // One call per connection at a time and none queued: a connection's call waiting for the workspace's
      // slot holds all of its connection's.
      outbound: {
        ...testConfig('sqlite').outbound,
        connectionConcurrency: 1,
        connectionQueue: 0,
        workspaceConcurrency: 2,
        workspaceQueue: 1,
      },
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

  /** Two relays of the workspace on connections of their own, their answers begun and held open. */
  const holdTwo = async () => {
    const relays = await Promise.all(
      [await connectionOf(h.apiKey), await connectionOf(h.apiKey)].map((id) =>
        request(`${h.url}/passthrough/${id}/held`, { headers: { authorization: `Bearer ${h.apiKey}` } }),
      ),
    )
    for (const relay of relays) expect(relay.statusCode).toBe(200)
    return async () => {
      for (const res of held.splice(0)) res.end(' last bytes')
      for (const relay of relays) expect(await relay.body.text()).toBe('first bytes last bytes')
    }
  }
  const waiting = () => h.services.transport.workspaceLimiter.load(h.workspaceId).waiting
  /** Each a 429 to retry shortly, naming the workspace's bound. */
  const expectWorkspaceRefusals = (refusals: ApiResponse<{ message: string }>[]) => {
    for (const refused of refusals) {
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('1')
      expect(refused.body.message).toBe(
        'this workspace already has 2 provider calls running and 1 waiting, its limit ' +
          '(UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY=2, UNIGATE_PROVIDER_WORKSPACE_QUEUE=1); retry later',
      )
    }
  }

  it('past its queue a relay of the workspace is a 429 naming the limit; another workspace goes on', async () => {
    const third = await connectionOf(h.apiKey)
    const fourth = await connectionOf(h.apiKey)
    const release = await holdTwo()
    // A third call waits its turn (the queue holds one); a fourth is refused, by the door and the routes alike.
    const queued = h.api('GET', `/passthrough/${third}/queued`)
    while (waiting() < 1) await new Promise((r) => setTimeout(r, 10))
    const refusals = [
      await h.api<{ message: string }>('GET', `/passthrough/${fourth}/other`),
      await h.api<{ message: string }>('POST', `/passthrough/${fourth}/other`, { body: { a: 1 } }),
    ]
    expectWorkspaceRefusals(refusals)
    // Nothing of them reached the provider.
    expect(seen.filter((path) => path.endsWith('/other'))).toEqual([])

    // Another workspace's relay to the same provider goes through meanwhile.
    const other = await h.otherWorkspace()
    const elsewhere = await h.api('GET', `/passthrough/${await connectionOf(other.apiKey)}/other`, {
      key: other.apiKey,
    })
    expect(elsewhere.status, elsewhere.text).toBe(200)
    expect(elsewhere.text).toBe('{"ok":true}')

    // Once the held answers end, the queued call goes, and the workspace's calls go again.
    await release()
    expect((await queued).status).toBe(200)
    const again = await h.api('GET', `/passthrough/${fourth}/other`)
    expect(again.status, again.text).toBe(200)
  })

  it("a connection whose calls all wait for the workspace's slots is refused naming the workspace's bound", async () => {
    const third = await connectionOf(h.apiKey)
    const release = await holdTwo()
    // The third connection's one slot is held by its call waiting in the workspace's queue, which it fills.
    const queued = h.api('GET', `/passthrough/${third}/queued`)
    while (waiting() < 1) await new Promise((r) => setTimeout(r, 10))
    const refusals = [
      await h.api<{ message: string }>('GET', `/passthrough/${third}/behind-the-workspace`),
      await h.api<{ message: string }>('POST', `/passthrough/${third}/behind-the-workspace`, {
        body: { a: 1 },
      }),
    ]
    // Not the connection's: its one call is not running but waiting for the workspace's slot.
    expectWorkspaceRefusals(refusals)
    expect(seen.filter((path) => path.endsWith('/behind-the-workspace'))).toEqual([])
    await release()
    expect((await queued).status).toBe(200)
    const again = await h.api('GET', `/passthrough/${third}/behind-the-workspace`)
    expect(again.status, again.text).toBe(200)
  })

  it('a caller that leaves while its call waits for a slot takes the call with it', async () => {
    const third = await connectionOf(h.apiKey)
    const release = await holdTwo()
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      `DELETE /passthrough/${third}/after-leaving HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${h.apiKey}\r\n\r\n`,
    )
    while (waiting() < 1) await new Promise((r) => setTimeout(r, 10))
    socket.destroy()
    while (waiting() > 0) await new Promise((r) => setTimeout(r, 10))
    // The slots come free: the call that was waiting is not sent after all.
    await release()
    const after = await h.api('GET', `/passthrough/${third}/other`)
    expect(after.status, after.text).toBe(200)
    expect(seen.filter((path) => path.endsWith('/after-leaving'))).toEqual([])
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, browserGet, browserPost, startAuthServer } from './support/auth-server.js'
import { testConfig } from './support/config.js'
import { answeredFathomVerification } from './support/fathom-stand-in.js'
import { type LocalServer, startLocalServer } from './support/local-server.js'

/**
 * The hosted key page is open to anyone holding a link, and anyone can make links (the auth endpoint takes
 * no key, and a workspace id is in every embed script); the page verifies at an address the visitor types.
 * Its verifications counted against the workspace's own provider calls: a few visitors pointing
 * `api_url` at an address that never answers held every one of the workspace's slots, and the workspace's
 * own API calls (its customers' reads) waited or answered 429.
 */
describe("the key page's verifications and the workspace's own calls", () => {
  let s: AuthServer
  let tarpit: LocalServer
  let provider: LocalServer
  const held: Promise<unknown>[] = []

  beforeAll(async () => {
    // Never answers: each verification sent here holds its slot until the provider timeout.
    tarpit = await startLocalServer(() => undefined)
    provider = await startLocalServer((req, res) => {
      if (!answeredFathomVerification(req, res)) res.end('{}')
    })
    const base = testConfig('sqlite')
    s = await startAuthServer('sqlite', {
      providerTimeoutMs: 5_000,
      outbound: { ...base.outbound, workspaceConcurrency: 2, workspaceQueue: 0 },
    })
  })
  afterAll(async () => {
    await tarpit?.close()
    await Promise.allSettled(held)
    await s?.close()
    await provider?.close()
  })

  it('anonymous visitors holding verifications do not take the slots of the workspace API', async () => {
    for (let i = 0; i < 2; i++) {
      const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/fathom`)
      expect(start.status).toBe(200)
      held.push(browserPost(start.text, { api_key: `k-${i}`, api_url: tarpit.url }))
    }
    for (const until = Date.now() + 5_000; tarpit.seen.length < 2 && Date.now() < until; )
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(tarpit.seen.length).toBe(2)

    const created = await s.api<{ id?: string; message?: string }>('POST', '/unified/connection', {
      integration_type: 'fathom',
      auth: { api_key: 'a-valid-token-1', meta: { api_url: provider.url } },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.id).toMatch(/^cn_na_/)
  })
})

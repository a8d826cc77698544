import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { type LocalServer, startLocalServer, storeConnection } from './support/local-server.js'

/**
 * A request reads its provider for at most UNIGATE_OPERATION_DEADLINE_MS, every call together: past it no
 * call starts and the answer is a 504 naming the setting. A deadline of 0 has passed before the first call,
 * so this needs no timing; the provider is a stand-in that would answer anything.
 */
describe('an API request past its operation deadline', () => {
  let h: Harness
  let provider: LocalServer

  beforeAll(async () => {
    provider = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"results":[]}')
    })
    const config = testConfig('sqlite')
    h = await startHarness('sqlite', { outbound: { ...config.outbound, operationDeadlineMs: 0 } })
  })
  afterAll(async () => {
    await h?.close()
    await provider?.close()
  })

  it('answers 504 naming the setting, and asks the provider nothing', async () => {
    const id = await storeConnection(h, provider.url)
    const res = await h.api<{ message: string }>('GET', `/analytics/${id}/event?limit=10`)
    expect(res.status).toBe(504)
    expect(res.body.message).toMatch(
      /reading from the provider for 0 s, the most Unigate allows one \(UNIGATE_OPERATION_DEADLINE_MS\); nothing more was asked/,
    )
    expect(provider.seen).toEqual([])
  })
})

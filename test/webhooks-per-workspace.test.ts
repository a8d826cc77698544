import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

vi.mock('../src/integrations/registry.js', async () => {
  const { FakeProvider, fakeIntegration } = await import('./support/fake-integration.js')
  const fake = fakeIntegration(new FakeProvider())
  return { INTEGRATIONS: [fake], integrationOf: (t: string) => (t === 'fake' ? fake : undefined) }
})

/**
 * Every process's scheduler looks over the due webhooks of every workspace at each tick (synchronously on
 * SQLite): one key holder's 60,000 webhooks, all due every minute, held every tenant's requests for about
 * 300 ms of each second (a security probe measured it). So a workspace holds a bounded number of them,
 * configured small here.
 */
describe.each(storeKinds())('webhooks one workspace may hold, on %s', (store) => {
  const MOST = 3
  let h: Harness
  let connectionId: string
  beforeAll(async () => {
    h = await startHarness(store, { webhooks: { ...testConfig(store).webhooks, maxPerWorkspace: MOST } })
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fake', auth: { token: 't' } },
    })
    expect(conn.status, conn.text).toBe(200)
    connectionId = conn.body.id
  })
  afterAll(async () => h?.close())

  const create = () =>
    h.api<{ id: string; message: string }>('POST', '/unified/webhook', {
      body: {
        connection_id: connectionId,
        object_type: 'analytics_visitor',
        event: 'created',
        hook_url: 'https://hooks.example.com/',
        is_paused: true,
      },
    })

  it('refuses one past UNIGATE_WEBHOOK_MAX_PER_WORKSPACE with a 400 naming it, and takes one again after a removal', async () => {
    const ids: string[] = []
    for (let i = 0; i < MOST; i++) {
      const res = await create()
      expect(res.status, res.text).toBe(200)
      ids.push(res.body.id)
    }
    const refused = await create()
    expect(refused.status, refused.text).toBe(400)
    expect(refused.body.message).toContain('UNIGATE_WEBHOOK_MAX_PER_WORKSPACE')
    expect(refused.body.message).toContain(`${MOST} webhooks`)
    expect((await h.api<unknown[]>('GET', '/unified/webhook')).body).toHaveLength(MOST)

    // Another workspace's count is its own.
    const other = await h.otherWorkspace()
    const otherConn = await h.api<{ id: string }>('POST', '/unified/connection', {
      key: other.apiKey,
      body: { integration_type: 'fake', auth: { token: 't' } },
    })
    const theirs = await h.api('POST', '/unified/webhook', {
      key: other.apiKey,
      body: {
        connection_id: otherConn.body.id,
        object_type: 'analytics_visitor',
        event: 'created',
        hook_url: 'https://hooks.example.com/',
        is_paused: true,
      },
    })
    expect(theirs.status, theirs.text).toBe(200)

    expect((await h.api('DELETE', `/unified/webhook/${ids[0]}`)).status).toBe(200)
    expect((await create()).status).toBe(200)
  })
})

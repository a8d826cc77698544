import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'

/**
 * A handler may build a list page already in the response's shape and mark it (`shapedPage`): the engine
 * then sends it as it is, without copying every record into the shape again (issue 12). The handler here
 * marks a page that is NOT in that shape (keys out of the model's order, and a `raw` nobody asked for), so
 * the answer shows which requests take the page as it is and which are shaped as always.
 */
vi.mock('../src/integrations/registry.js', async () => {
  const { FakeProvider, fakeIntegration } = await import('./support/fake-integration.js')
  const { shapedPage } = await import('../src/engine/fields.js')
  const fake = fakeIntegration(new FakeProvider())
  const built = () => [{ name: 'Acme', id: 'p1', raw: { plan: 'pro' } }]
  const objects = {
    ...fake.objects,
    analytics_property: { ...fake.objects.analytics_property!, list: async () => shapedPage(built()) },
    analytics_visitor: { ...fake.objects.analytics_visitor!, list: async () => built() },
  }
  const integration = { ...fake, objects }
  return {
    INTEGRATIONS: [integration],
    integrationOf: (t: string) => (t === 'fake' ? integration : undefined),
  }
})

describe('pages a handler built in the response shape', () => {
  let h: Harness
  let connectionId: string
  beforeAll(async () => {
    h = await startHarness('sqlite')
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fake', auth: { token: 't' } },
    })
    expect(conn.status, conn.text).toBe(200)
    connectionId = conn.body.id
  })
  afterAll(async () => h?.close())

  const list = async (object: string, fields?: string) => {
    const res = await h.api('GET', `/analytics/${connectionId}/${object}`, {
      query: fields === undefined ? {} : { fields },
    })
    expect(res.status, res.text).toBe(200)
    return res.text
  }

  it('are sent as built where the request listed its fields and no raw', async () => {
    expect(await list('property', 'id,name')).toBe('[{"name":"Acme","id":"p1","raw":{"plan":"pro"}}]')
  })

  it('are shaped as always where raw, a raw.<name> or no fields was asked', async () => {
    expect(await list('property', 'name,id,raw')).toBe('[{"id":"p1","name":"Acme","raw":{"plan":"pro"}}]')
    expect(await list('property', 'id,raw.plan')).toBe('[{"id":"p1","raw":{"plan":"pro"}}]')
    expect(await list('property')).toBe('[{"id":"p1","name":"Acme"}]')
  })

  it('are told apart from pages not marked, which are shaped', async () => {
    expect(await list('visitor', 'id,name')).toBe('[{"id":"p1","name":"Acme"}]')
  })
})

import { describe, expect, it, vi } from 'vitest'
import { useFakeConnection } from './support/fake-connection.js'

/**
 * A handler may build a list page already in the response's shape and mark it (`shapedPage`): the engine
 * then sends it as it is, without copying every record into the shape again (issue 12). The handler here
 * marks a page that is NOT in that shape (keys out of the model's order, and a `raw` nobody asked for), so
 * the answer shows which requests take the page as it is and which are shaped as always.
 */
vi.mock('../src/integrations/registry.js', async () => {
  const { fakeRegistryWithPages } = await import('./support/fake-integration.js')
  return fakeRegistryWithPages(() => [{ name: 'Acme', id: 'p1', raw: { plan: 'pro' } }])
})

describe('pages a handler built in the response shape', () => {
  const suite = useFakeConnection()

  const list = async (object: string, fields?: string) => {
    const res = await suite.h.api('GET', `/analytics/${suite.connectionId}/${object}`, {
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

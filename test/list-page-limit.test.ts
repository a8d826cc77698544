import { describe, expect, it, vi } from 'vitest'
import { useFakeConnection } from './support/fake-connection.js'

/**
 * A handler whose provider answers more records than the page asked for (a server of the connection's
 * creator may): the list answers at most `limit` records, the first ones, whatever the handler returned.
 * The handlers here ignore `limit`, one returning a page marked as already shaped (`shapedPage`).
 */
vi.mock('../src/integrations/registry.js', async () => {
  const { fakeRegistryWithPages } = await import('./support/fake-integration.js')
  return fakeRegistryWithPages(() =>
    Array.from({ length: 5 }, (_, i) => ({ id: `p${i}`, name: `site ${i}` })),
  )
})

describe('a list page of more records than limit', () => {
  const suite = useFakeConnection()

  it.each(['property', 'visitor'])('is cut to limit, first records kept (%s)', async (object) => {
    const ids = async (query: Record<string, string>) => {
      const res = await suite.h.api<{ id: string }[]>('GET', `/analytics/${suite.connectionId}/${object}`, {
        query,
      })
      expect(res.status, res.text).toBe(200)
      return res.body.map((r) => r.id)
    }
    expect(await ids({ limit: '2', fields: 'id' })).toEqual(['p0', 'p1'])
    expect(await ids({ limit: '2' })).toEqual(['p0', 'p1'])
    expect(await ids({ fields: 'id,name' })).toEqual(['p0', 'p1', 'p2', 'p3', 'p4'])
  })
})

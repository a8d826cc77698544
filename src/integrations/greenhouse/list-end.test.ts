import { describe, expect, it } from 'vitest'
import { memoryCursors } from '../cursors.js'
import type { ProviderClient, ProviderRequest } from '../http-client.js'
import type { HandlerContext, ListQuery } from '../types.js'
import { applicationHandlers } from './applications.js'

/**
 * A fake Harvest v3 `/applications` of `count` applications, paged as Greenhouse pages: `per_page` on the
 * first request, then the `rel="next"` URL, which the last page lacks
 * (https://harvestdocs.greenhouse.io/docs/pagination).
 */
function fakeGreenhouse(count: number) {
  const sent: ProviderRequest[] = []
  const apps = Array.from({ length: count }, (_, i) => ({ id: i + 1 }))
  const client = {
    async send(req: ProviderRequest) {
      sent.push(req)
      const url = new URL(req.path, 'https://harvest.test/v3/')
      const [position, perPage] = req.query
        ? [0, Number(req.query.per_page)]
        : (url.searchParams.get('cursor') ?? '').split(':').map(Number)
      const end = position! + perPage!
      const link =
        end < count
          ? `<https://harvest.test/v3/applications?cursor=${end}:${perPage}>; rel="next"`
          : undefined
      return { status: 200, headers: link ? { link } : {}, body: apps.slice(position, end) }
    },
    linkFrom: (_request: ProviderRequest, link: string) => link,
  } as unknown as ProviderClient
  return { client, sent }
}

async function listWindow(count: number, offset: number, limit: number) {
  const { client, sent } = fakeGreenhouse(count)
  let ended = false
  const ctx = {
    client,
    credentials: {},
    settings: {},
    connectionId: 'cn_1',
    fields: { raw: false, rawNames: [], slow: new Set<string>() },
    rawParams: {},
    cursors: memoryCursors(),
    onListEnd: () => {
      ended = true
    },
  } satisfies HandlerContext
  const records = await applicationHandlers.list!(ctx, { offset, limit, filters: {} } as unknown as ListQuery)
  return { ids: records.map((r) => r.id), ended, sent }
}

describe('Greenhouse applications: telling a whole-list reader the list ended', () => {
  it('says so when the last page, without rel="next", ends within the window', async () => {
    const got = await listWindow(1000, 0, 1000)
    expect(got.ids).toHaveLength(1000)
    expect(got.ended).toBe(true)
    expect(got.sent).toHaveLength(2)
  })

  it("does not when rows follow the window on the last page: they are the next window's", async () => {
    const got = await listWindow(1000, 500, 100)
    expect(got.ids).toEqual(Array.from({ length: 100 }, (_, i) => String(501 + i)))
    expect(got.ended).toBe(false)
  })

  it('does not while Greenhouse gives a next link', async () => {
    const got = await listWindow(1001, 0, 1000)
    expect(got.ids).toHaveLength(1000)
    expect(got.ended).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import { memoryCursors } from '../cursors.js'
import type { ProviderClient, ProviderRequest } from '../http-client.js'
import type { HandlerContext } from '../types.js'
import type { MatomoVisit } from './provider-types.js'
import { walkVisits, windowParams } from './visit-walk.js'

/** `count` visits, newest first as Live lists them, visit i holding `actionsOf(i)` actions (url `/i/j`). */
const visitLog = (count: number, actionsOf: (i: number) => number): MatomoVisit[] =>
  Array.from({ length: count }, (_, i) => ({
    idSite: '1',
    idVisit: String(10_000 - i),
    visitorId: '0123456789abcdef',
    firstActionTimestamp: 5000 - i,
    lastActionTimestamp: 5000 - i,
    actionDetails: Array.from({ length: actionsOf(i) }, (_, j) => ({
      type: 'action',
      timestamp: 5000 - i,
      url: `/${i}/${j}`,
    })),
  }))

/** Visits with 0..3 actions each, served by a fake Matomo that pages by filter_offset/filter_limit. */
const visits = visitLog(40, (i) => i % 4)

/** `ignoresLimit`: a server that answers its whole log whatever filter_limit asked (not Matomo's way). */
function fakeContext(log: readonly MatomoVisit[] = visits, ignoresLimit = false) {
  const calls: Array<Record<string, string>> = []
  const client = {
    async send(req: ProviderRequest) {
      const form = Object.fromEntries(new URLSearchParams(String(req.body)))
      calls.push(form)
      const offset = Number(form.filter_offset)
      const limit = Number(form.filter_limit)
      return { status: 200, headers: {}, body: ignoresLimit ? log : log.slice(offset, offset + limit) }
    },
  } as unknown as ProviderClient
  const ctx = {
    client,
    credentials: { token_auth: 't' },
    settings: {},
    connectionId: 'cn_1',
    fields: { raw: false, rawNames: [], slow: new Set<string>() },
    rawParams: {},
    cursors: memoryCursors(),
  } satisfies HandlerContext
  return { ctx, calls }
}

const urls = (v: MatomoVisit) => (v.actionDetails ?? []).map((a) => String(a.url))
const all = visits.flatMap(urls)
const utc = async () => 'UTC'

describe('walkVisits', () => {
  it('reads items at an item offset across visit pages, exactly', async () => {
    const { ctx } = fakeContext()
    for (const [offset, limit] of [
      [0, 7],
      [5, 13],
      [50, 30],
    ] as const) {
      const got = await walkVisits(ctx, `s${offset}`, { idSite: '1' }, offset, limit, urls, 10, utc)
      expect(got).toEqual(all.slice(offset, offset + limit))
    }
  })

  it('starts the next page where the previous one ended instead of walking again', async () => {
    const { ctx, calls } = fakeContext()
    const pages: string[][] = []
    for (let offset = 0; offset < all.length; offset += 8) {
      pages.push(await walkVisits(ctx, 'scope', { idSite: '1' }, offset, 8, urls, 5, utc))
    }
    expect(pages.flat()).toEqual(all)
    // Each visit page is fetched about once overall (plus one boundary re-read per unified page),
    // not once per unified page read before it.
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(visits.length / 5) + pages.length)
    // Matomo is never given an offset (see fetchVisits): the remembered position is a visit count read from 0.
    expect(calls.every((c) => Number(c.filter_offset) === 0)).toBe(true)
    expect(Number(calls[calls.length - 1]?.filter_limit)).toBeGreaterThan(20)
  })

  it('walks a sparse filter with reads that add up to a few times the visits passed, not their square', async () => {
    // 3,000 visits of one action each; the filter keeps every 300th: a page of 5 walks 1,500 visits.
    const log = visitLog(3000, () => 1)
    const { ctx, calls } = fakeContext(log)
    const kept = (v: MatomoVisit) => urls(v).filter((u) => Number(u.split('/')[1]) % 300 === 0)
    const got = await walkVisits(ctx, 'sparse', { idSite: '1' }, 0, 5, kept, 10, utc)
    expect(got).toEqual(['/0/0', '/300/0', '/600/0', '/900/0', '/1200/0'])
    const visitsRead = calls.reduce((sum, c) => sum + Math.min(Number(c.filter_limit), log.length), 0)
    // Reading 10 visits more each round, from the first visit each time, read 73,810 (the code before).
    expect(visitsRead).toBeLessThan(4 * 1300)
  })

  it('passes the time window to Matomo', () => {
    const start = new Date('2024-05-02T10:00:00Z')
    const end = new Date('2024-05-03T00:00:00Z')
    expect(windowParams(start, end)).toEqual({
      minTimestamp: start.getTime() / 1000 - 1,
      period: 'range',
      date: '2024-05-01,2024-05-05',
    })
  })
})

describe('a server that answers more visits than filter_limit asked', () => {
  it('is refused with a 502 naming both counts, before any visit is walked', async () => {
    const { ctx } = fakeContext(visits, true)
    const walked: string[] = []
    const pick = (v: MatomoVisit) => {
      walked.push(String(v.idVisit))
      return urls(v)
    }
    await expect(walkVisits(ctx, 'flood', { idSite: '1' }, 0, 5, pick, 10, utc)).rejects.toMatchObject({
      statusCode: 502,
      message: 'Matomo answered 40 visits to a call limited to 10; not passed on',
    })
    expect(walked).toEqual([])
  })
})

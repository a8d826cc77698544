import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import { memoryCursors } from '../cursors.js'
import type { ProviderClient, ProviderRequest } from '../http-client.js'
import type { HandlerContext } from '../types.js'
import type { MatomoVisit } from './provider-types.js'
import { MAX_CHANGED_VISITS, readVisitsAsOf } from './visit-snapshot.js'

/** A visit whose actions happened at `times` (unix seconds, a UTC site, so wall clock = UTC). */
const visitAt = (idVisit: number, ...times: number[]): MatomoVisit => ({
  idSite: '1',
  idVisit: String(idVisit),
  visitorId: '0123456789abcdef',
  firstActionTimestamp: times[0] as number,
  lastActionTimestamp: times[times.length - 1] as number,
  actionDetails: times.map((timestamp) => ({ type: 'action', timestamp })),
})

/**
 * A fake Live: orders by last action time then idvisit (desc unless filter_sort_order=asc), keeps
 * visits strictly after minTimestamp, answers filter_limit visits from offset 0.
 */
function fakeLive(visits: MatomoVisit[]) {
  const calls: Array<Record<string, string>> = []
  const client = {
    async send(req: ProviderRequest) {
      const form = Object.fromEntries(new URLSearchParams(String(req.body)))
      calls.push(form)
      const sign = form.filter_sort_order === 'asc' ? 1 : -1
      const min = form.minTimestamp === undefined ? Number.NEGATIVE_INFINITY : Number(form.minTimestamp)
      const rows = visits
        .filter((v) => v.lastActionTimestamp > min)
        .sort(
          (a, b) =>
            sign * (a.lastActionTimestamp - b.lastActionTimestamp || Number(a.idVisit) - Number(b.idVisit)),
        )
      return { status: 200, headers: {}, body: rows.slice(0, Number(form.filter_limit)) }
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

const utc = async () => 'UTC'
const ids = (visits: MatomoVisit[]) => visits.map((v) => Number(v.idVisit))

describe('readVisitsAsOf', () => {
  // As of 1000: visits 1..5 last acted at 100..500; since then visit 2 acted again (at 1100) and visit
  // 6 began (at 1050).
  const visits = () => [
    visitAt(1, 100),
    visitAt(2, 150, 200, 1100),
    visitAt(3, 300),
    visitAt(4, 350, 400),
    visitAt(5, 500),
    visitAt(6, 1050),
  ]

  it('places a visit that acted since where its last action before then put it, newest first', async () => {
    const { ctx, calls } = fakeLive(visits())
    const page = async (offset: number) =>
      ids(await readVisitsAsOf(ctx, { idSite: '1' }, 1000, offset, 2, utc))
    expect([...(await page(0)), ...(await page(2)), ...(await page(4))]).toEqual([5, 4, 3, 2, 1])
    // Newest first, what changed comes first in Live's own list: no query of its own, and Live is never
    // given an offset.
    expect(calls.every((c) => c.minTimestamp === undefined && c.filter_offset === '0')).toBe(true)
  })

  it('asks for what changed on its own when oldest first', async () => {
    const { ctx, calls } = fakeLive(visits())
    const params = { idSite: '1', filter_sort_order: 'asc' }
    expect(ids(await readVisitsAsOf(ctx, params, 1000, 0, 5, utc))).toEqual([1, 2, 3, 4, 5])
    expect(calls.map((c) => [c.filter_sort_order, c.minTimestamp])).toEqual([
      ['asc', undefined],
      ['desc', '1000'],
    ])
  })

  it("keeps a list's lower bound: a visit whose last action then was before it is not listed", async () => {
    const { ctx } = fakeLive(visits())
    // minTimestamp 250: visit 2 is in Live's answer (1100) but acted last at 200 as of 1000.
    const got = await readVisitsAsOf(ctx, { idSite: '1', minTimestamp: 250 }, 1000, 0, 10, utc)
    expect(ids(got)).toEqual([5, 4, 3])
  })

  it('asks to start again when more visits changed since the first page than it will read', async () => {
    const many = Array.from({ length: MAX_CHANGED_VISITS + 1 }, (_, i) => visitAt(100 + i, 500, 2000))
    const { ctx } = fakeLive([visitAt(1, 100), ...many])
    const err = await readVisitsAsOf(ctx, { idSite: '1', filter_sort_order: 'asc' }, 1000, 0, 1, utc).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ statusCode: 409 })
    expect((err as Error).message).toContain('from offset 0')
  })

  describe('after the visit the page before ended with', () => {
    // Newest first, as of 1000: 5, 4, 3, 2, 1. The first page of two ended with visit 4.
    const settledVisits = () => [
      visitAt(1, 100),
      visitAt(2, 200),
      visitAt(3, 300),
      visitAt(4, 400),
      visitAt(5, 500),
    ]
    const secondPage = async (visits: MatomoVisit[]) => {
      const { ctx } = fakeLive(visits)
      return ids(
        await readVisitsAsOf(ctx, { idSite: '1' }, 1000, 2, 2, utc, { idVisit: '4', inclusive: false }),
      )
    }

    it('misses nothing when a visit before it was deleted since', async () => {
      const visits = settledVisits().filter((v) => v.idVisit !== '5')
      expect(await secondPage(visits)).toEqual([3, 2])
      // By position alone, visit 3 would be skipped.
      const { ctx } = fakeLive(visits)
      expect(ids(await readVisitsAsOf(ctx, { idSite: '1' }, 1000, 2, 2, utc))).toEqual([2, 1])
    })

    it('repeats nothing when visits were recorded before it since, with past times', async () => {
      expect(
        await secondPage([...settledVisits(), visitAt(7, 450), visitAt(8, 460), visitAt(9, 470)]),
      ).toEqual([3, 2])
    })

    it('asks to start again when that visit itself is gone', async () => {
      const err = await secondPage(settledVisits().filter((v) => v.idVisit !== '4')).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect(err).toMatchObject({ statusCode: 409 })
      expect((err as Error).message).toMatch(/visit 4 .*from offset 0/)
    })
  })
})

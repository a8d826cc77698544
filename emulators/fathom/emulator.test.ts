import { describe, expect, it } from 'vitest'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from './index.js'

describe('Fathom emulator', () => {
  const json = { authorization: `Bearer ${DEFAULT_FATHOM_API_KEY}`, accept: 'application/json' }

  it('seeds the same sites and traffic from the same seed, with Fathom-style ids', async () => {
    const [a, b] = await Promise.all([
      startFathomEmulator({ seed: 2, sites: 15 }),
      startFathomEmulator({ seed: 2, sites: 15 }),
    ])
    try {
      const ids = a.state.orderedSites().map((s) => s.id)
      expect(ids).toEqual(b.state.orderedSites().map((s) => s.id))
      expect(ids.every((id) => /^[A-Z]{6,8}$/.test(id))).toBe(true)
      expect(a.state.hits.get(ids[0] as string)).toHaveLength(500)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('answers errors as HTML without Accept: application/json, and validates aggregation parameters', async () => {
    const emu = await startFathomEmulator({})
    try {
      const site = emu.state.orderedSites()[0]?.id
      const html = await fetch(`${emu.url}/v1/sites?limit=500`, {
        headers: { authorization: json.authorization },
      })
      expect(html.headers.get('content-type')).toMatch(/text\/html/)
      const tooMany = await fetch(`${emu.url}/v1/sites?limit=500`, { headers: json })
      expect(tooMany.status).toBe(400)
      expect(await tooMany.json()).toEqual({ errors: { limit: ['The limit must be between 1 and 100.'] } })
      const agg = (q: string) => fetch(`${emu.url}/v1/aggregations?${q}`, { headers: json })
      expect((await agg(`entity=pageview&entity_id=${site}`)).status).toBe(400)
      expect((await agg(`entity=pageview&entity_id=${site}&aggregates=conversions`)).status).toBe(400)
      expect(
        (await agg(`entity=pageview&entity_id=${site}&aggregates=visits&date_from=2024-05-01T00:00:00Z`))
          .status,
      ).toBe(400)
      const ok = await agg(`entity=pageview&entity_id=${site}&aggregates=visits,pageviews`)
      const list = (await ok.json()) as { object: string; has_more: boolean; data: Record<string, unknown>[] }
      expect(list).toMatchObject({ object: 'list', has_more: false })
      expect(typeof list.data[0]?.visits).toBe('string')
      const base = `entity=pageview&entity_id=${site}&aggregates=visits&timezone=UTC`
      expect((await agg(`${base}&date_grouping=week`)).status).toBe(400)
      const longHours = await agg(
        `${base}&date_grouping=hour&date_from=2024-05-01 00:00:00&date_to=2024-05-09 00:00:00`,
      )
      expect(longHours.status).toBe(400)
      const weekHours = await agg(
        `${base}&date_grouping=hour&date_from=2024-05-01 00:00:00&date_to=2024-05-07 23:59:59`,
      )
      expect(weekHours.status).toBe(200)
    } finally {
      await emu.close()
    }
  })

  it('answers bounce_rate as the unrounded 0-1 fraction of visits that bounced, counts as strings', async () => {
    const emu = await startFathomEmulator({ seed: 3, sites: 1, pageviews: 700 })
    try {
      const site = emu.state.orderedSites()[0]?.id as string
      const visits = (emu.state.hits.get(site) ?? []).filter((h) => h.visit)
      const res = await fetch(
        `${emu.url}/v1/aggregations?entity=pageview&entity_id=${site}&aggregates=visits,bounce_rate`,
        { headers: json },
      )
      const row = ((await res.json()) as { data: Record<string, unknown>[] }).data[0]
      expect(row?.visits).toBe(String(visits.length))
      expect(row?.bounce_rate).toBe(visits.filter((h) => h.bounce).length / visits.length)
      expect(row?.bounce_rate).toBeGreaterThan(0)
      expect(row?.bounce_rate).toBeLessThan(1)
    } finally {
      await emu.close()
    }
  })

  it('tells token abilities apart: only all-sites tokens list sites, a site token reads its own', async () => {
    const emu = await startFathomEmulator({ sites: 3, tokens: { site_tok: [] } })
    try {
      const [mine, other] = emu.state.orderedSites().map((s) => s.id)
      emu.state.tokens.set('site_tok', [`read:${mine}`])
      const headers = { authorization: 'Bearer site_tok', accept: 'application/json' }
      const get = (path: string) => fetch(`${emu.url}/v1${path}`, { headers })
      const token = await get('/token')
      expect(token.status).toBe(200)
      expect(await token.json()).toMatchObject({ abilities: [`read:${mine}`] })
      expect((await get('/sites')).status).toBe(400)
      expect((await get(`/sites/${mine}`)).status).toBe(200)
      expect((await get(`/sites/${other}`)).status).toBe(404)
      expect((await get('/account')).status).toBe(400)
      const agg = await get(`/aggregations?entity=pageview&entity_id=${other}&aggregates=visits`)
      expect(agg.status).toBe(404)
    } finally {
      await emu.close()
    }
  })

  it('reads dates of the years 0 to 99 as those years, not as 1900 to 1999', async () => {
    const emu = await startFathomEmulator({ seed: 3, sites: 1, pageviews: 10 })
    try {
      const site = emu.state.orderedSites()[0]?.id as string
      const hit = { fields: {}, visit: true, unique: true, bounce: false, duration: 1 }
      // One visit on 0050-03-01 and one on 1950-03-01: Date.UTC had read the first day as the second.
      emu.state.hits
        .get(site)
        ?.push(
          { ...hit, at: Date.parse('0050-03-01T12:00:00Z') },
          { ...hit, at: Date.parse('1950-03-01T12:00:00Z') },
          { ...hit, at: Date.parse('1950-03-01T13:00:00Z') },
        )
      const res = await fetch(
        `${emu.url}/v1/aggregations?entity=pageview&entity_id=${site}&aggregates=visits&timezone=UTC` +
          '&date_grouping=day&date_from=0050-03-01 00:00:00&date_to=0050-03-01 23:59:59',
        { headers: json },
      )
      expect(res.status).toBe(200)
      expect(((await res.json()) as { data: unknown[] }).data).toEqual([{ visits: '1', date: '0050-03-01' }])
    } finally {
      await emu.close()
    }
  })
})

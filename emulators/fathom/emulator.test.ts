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
      expect(tooMany.status).toBe(422)
      const agg = (q: string) => fetch(`${emu.url}/v1/aggregations?${q}`, { headers: json })
      expect((await agg(`entity=pageview&entity_id=${site}`)).status).toBe(422)
      expect((await agg(`entity=pageview&entity_id=${site}&aggregates=conversions`)).status).toBe(422)
      expect(
        (await agg(`entity=pageview&entity_id=${site}&aggregates=visits&date_from=2024-05-01T00:00:00Z`))
          .status,
      ).toBe(422)
      const ok = await agg(`entity=pageview&entity_id=${site}&aggregates=visits,pageviews`)
      const rows = (await ok.json()) as Record<string, unknown>[]
      expect(typeof rows[0]?.visits).toBe('string')
    } finally {
      await emu.close()
    }
  })
})

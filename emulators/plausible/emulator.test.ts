import { describe, expect, it } from 'vitest'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from './index.js'

describe('Plausible emulator', () => {
  const auth = { authorization: `Bearer ${DEFAULT_PLAUSIBLE_API_KEY}`, 'content-type': 'application/json' }

  it('seeds the same sites and visits from the same seed', async () => {
    const [a, b] = await Promise.all([
      startPlausibleEmulator({ seed: 4, sites: 20 }),
      startPlausibleEmulator({ seed: 4, sites: 20 }),
    ])
    try {
      expect(a.state.orderedSites().map((s) => s.domain)).toEqual(b.state.orderedSites().map((s) => s.domain))
      expect(a.state.visits.get('site0001.example.com')).toEqual(b.state.visits.get('site0001.example.com'))
      expect(a.state.sites.size).toBe(20)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('refuses a cursor reused with another limit, a missing key, and invalid queries', async () => {
    const emu = await startPlausibleEmulator({ sites: 5 })
    try {
      const first = await fetch(`${emu.url}/api/v1/sites?limit=2`, { headers: auth })
      const { meta } = (await first.json()) as { meta: { after: string } }
      const changed = await fetch(`${emu.url}/api/v1/sites?limit=3&after=${meta.after}`, { headers: auth })
      expect(changed.status).toBe(400)
      const anonymous = await fetch(`${emu.url}/api/v1/sites`)
      expect(anonymous.status).toBe(401)
      expect(await anonymous.json()).toEqual({
        error: 'Missing API key. Please use a valid Plausible API key as a Bearer Token.',
      })
      const query = (body: unknown) =>
        fetch(`${emu.url}/api/v2/query`, { method: 'POST', headers: auth, body: JSON.stringify(body) })
      const base = { site_id: 'site0001.example.com', date_range: '7d' }
      expect((await query({ ...base, metrics: ['visitors'], dimensions: ['visit:planet'] })).status).toBe(400)
      expect((await query({ ...base, metrics: ['conversion_rate'] })).status).toBe(400)
      expect((await query({ ...base, metrics: ['bounce_rate'], dimensions: ['event:goal'] })).status).toBe(
        400,
      )
      expect(
        (await query({ ...base, metrics: ['visitors'], date_range: ['2024-05-01', '2024-05-01T00:00:00Z'] }))
          .status,
      ).toBe(400)
      const ok = await query({ ...base, metrics: ['visitors'] })
      expect(ok.status).toBe(200)
      const event = await fetch(`${emu.url}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0' },
        body: JSON.stringify({ domain: 'site0001.example.com', name: 'pageview' }),
      })
      expect(event.status).toBe(400)
      expect(await event.json()).toEqual({ errors: { url: ["can't be blank"] } })
    } finally {
      await emu.close()
    }
  })
})

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

  it('continues a cursor with another limit, ignores a limit over 100, refuses a missing key and bad queries', async () => {
    const emu = await startPlausibleEmulator({ sites: 130 })
    try {
      const first = await fetch(`${emu.url}/api/v1/sites?limit=2`, { headers: auth })
      const { meta } = (await first.json()) as { meta: { after: string } }
      // Paginator cursors carry only the site id (plausible/analytics:lib/plausible/pagination.ex).
      const changed = await fetch(`${emu.url}/api/v1/sites?limit=3&after=${meta.after}`, { headers: auth })
      expect(changed.status).toBe(200)
      expect(((await changed.json()) as { sites: unknown[] }).sites).toHaveLength(3)
      const big = await fetch(`${emu.url}/api/v1/sites?limit=500`, { headers: auth })
      expect((await big.json()) as { meta: { limit: number }; sites: unknown[] }).toMatchObject({
        meta: { limit: 100 },
      })
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
      expect(await event.json()).toEqual({ errors: { url: ['is required'] } })
    } finally {
      await emu.close()
    }
  })

  it("labels the first week by the range's first date when the range starts mid-week", async () => {
    const emu = await startPlausibleEmulator({ sites: 1, visits: 400 })
    try {
      const res = await fetch(`${emu.url}/api/v2/query`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          site_id: 'site0001.example.com',
          metrics: ['visits'],
          dimensions: ['time:week'],
          date_range: ['2024-05-08', '2024-05-19'],
        }),
      })
      const { results } = (await res.json()) as { results: { dimensions: string[] }[] }
      expect(results.map((r) => r.dimensions[0])).toEqual(['2024-05-08', '2024-05-13'])
    } finally {
      await emu.close()
    }
  })

  it('refuses what the public Stats API v2 refuses, in its words', async () => {
    const emu = await startPlausibleEmulator({ sites: 2 })
    try {
      const query = async (body: unknown) => {
        const res = await fetch(`${emu.url}/api/v2/query`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify(body),
        })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      const base = { site_id: 'site0001.example.com', date_range: '7d' }
      expect(
        await query({ ...base, metrics: ['visitors', 'views_per_visit'], dimensions: ['visit:country'] }),
      ).toEqual({
        status: 400,
        body: { error: 'Metric `views_per_visit` cannot be queried with `dimensions`.' },
      })
      expect(
        (await query({ ...base, metrics: ['views_per_visit'], filters: [['is', 'event:page', ['/']]] })).body,
      ).toEqual({ error: 'Metric `views_per_visit` cannot be queried with a filter on `event:page`.' })
      expect((await query({ ...base, metrics: ['views_per_visit'] })).status).toBe(200)
      expect((await query({ ...base, metrics: ['time_on_page'], dimensions: ['event:page'] })).status).toBe(
        400,
      )
      expect(await query({ ...base, metrics: ['pageviews'], dimensions: ['visit:entry_page'] })).toEqual({
        status: 400,
        body: {
          error:
            'Event metric(s) `pageviews` cannot be queried along with session dimension(s) `visit:entry_page`',
        },
      })
      expect((await query({ ...base, metrics: ['visits'], dimensions: ['event:goal'] })).status).toBe(200)
      expect(
        (await query({ ...base, metrics: ['visitors'], filters: [['is', 'event:goal', ['Nope']]] })).status,
      ).toBe(400)
      expect((await query({ metrics: ['visitors'], date_range: '7d' })).body).toEqual({
        error: 'Missing site ID. Please provide the required site_id parameter with your request.',
      })
      // event:name counts every event; event:goal only the configured goals.
      const dims = async (dimension: string) =>
        (
          (await query({ ...base, date_range: 'all', metrics: ['events'], dimensions: [dimension] })).body
            .results as Array<{ dimensions: string[] }>
        ).map((r) => r.dimensions[0])
      expect(await dims('event:name')).toEqual(expect.arrayContaining(['pageview', 'Outbound Link: Click']))
      const goals = await dims('event:goal')
      expect(goals).not.toContain('pageview')
      expect(goals).not.toContain('Outbound Link: Click')
      expect(goals.length).toBeGreaterThan(0)
    } finally {
      await emu.close()
    }
  })

  it('lets every key read sites, only a provisioning key change them, and a CE has no Sites API', async () => {
    const emu = await startPlausibleEmulator({
      sites: 2,
      apiKeys: ['stats', 'sites'],
      provisionKeys: ['sites'],
    })
    const ce = await startPlausibleEmulator({ sites: 2, edition: 'community' })
    try {
      const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })
      expect((await fetch(`${emu.url}/api/v1/sites`, { headers: as('stats') })).status).toBe(200)
      const create = (key: string) =>
        fetch(`${emu.url}/api/v1/sites`, {
          method: 'POST',
          headers: as(key),
          body: JSON.stringify({ domain: 'x.example.com' }),
        })
      const refused = await create('stats')
      expect(refused.status).toBe(401)
      expect(await refused.json()).toEqual({
        error:
          "Invalid API key. Please make sure you're using a valid API key with access to the resource you've requested.",
      })
      expect((await create('sites')).status).toBe(200)
      expect((await fetch(`${ce.url}/api/v1/sites`, { headers: auth })).status).toBe(404)
      const stats = await fetch(`${ce.url}/api/v2/query`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ site_id: 'site0001.example.com', metrics: ['visitors'], date_range: '7d' }),
      })
      expect(stats.status).toBe(200)
    } finally {
      await Promise.all([emu.close(), ce.close()])
    }
  })

  it('drops events sent without X-Forwarded-For and counts visitors by IP and User-Agent', async () => {
    const emu = await startPlausibleEmulator({ sites: 1, visits: 0 })
    try {
      const send = (headers: Record<string, string>) =>
        fetch(`${emu.url}/api/event`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Mozilla/5.0 Firefox/126.0',
            ...headers,
          },
          body: JSON.stringify({
            domain: 'site0001.example.com',
            name: 'pageview',
            url: 'https://site0001.example.com/',
          }),
        })
      const fromServer = await send({})
      expect(fromServer.status).toBe(202)
      expect(fromServer.headers.get('x-plausible-dropped')).toBe('1')
      expect(await fromServer.text()).toBe('ok')
      const a = await send({ 'x-forwarded-for': '198.51.100.1' })
      expect(a.headers.get('x-plausible-dropped')).toBeNull()
      await send({ 'x-forwarded-for': '198.51.100.2, 10.0.0.1' })
      await send({ 'x-forwarded-for': '198.51.100.1' })
      // An unknown currency is ignored, not refused.
      const odd = await fetch(`${emu.url}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Mozilla/5.0',
          'x-forwarded-for': '198.51.100.9',
        },
        body: JSON.stringify({
          name: 'Buy',
          url: 'https://site0001.example.com/',
          revenue: { currency: 'euro', amount: 3 },
        }),
      })
      expect(odd.status).toBe(202)
      const visits = emu.state.visits.get('site0001.example.com') ?? []
      expect(visits.at(-1)?.events[0]).toMatchObject({ name: 'Buy' })
      expect(visits.at(-1)?.events[0]?.revenue).toBeUndefined()
      visits.pop()
      expect(visits).toHaveLength(3)
      expect(new Set(visits.map((v) => v.visitorId)).size).toBe(2)
    } finally {
      await emu.close()
    }
  })

  it('labels blank visit values and missing props as Plausible does, and takes event:hostname beside event:page', async () => {
    const emu = await startPlausibleEmulator({ sites: 1 })
    try {
      const query = async (body: Record<string, unknown>) => {
        const res = await fetch(`${emu.url}/api/v2/query`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ site_id: 'site0001.example.com', date_range: 'all', ...body }),
        })
        return { status: res.status, body: (await res.json()) as { results: { dimensions: string[] }[] } }
      }
      const labels = async (dimension: string) =>
        (await query({ metrics: ['visitors'], dimensions: [dimension] })).body.results.map(
          (r) => r.dimensions[0],
        )
      // Seeded visits without UTM tags or referrer show up under Plausible's blank labels, not dropped.
      expect(await labels('visit:utm_medium')).toContain('(not set)')
      expect(await labels('visit:referrer')).toContain('Direct / None')
      const sent = await fetch(`${emu.url}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Mozilla/5.0',
          'x-forwarded-for': '81.1.2.3',
        },
        body: JSON.stringify({
          name: 'Signup',
          url: 'https://site0001.example.com/join',
          props: { plan: 'pro' },
        }),
      })
      expect(sent.status).toBe(202)
      expect(await labels('event:props:plan')).toEqual(expect.arrayContaining(['pro', '(none)']))
      const both = await query({ metrics: ['bounce_rate'], dimensions: ['event:page', 'event:hostname'] })
      expect(both.status).toBe(200)
    } finally {
      await emu.close()
    }
  })

  it('resolves `time` as Plausible does: hours up to 48 hours, days up to 40 days, then weeks', async () => {
    const emu = await startPlausibleEmulator({ sites: 1 })
    try {
      const labels = async (date_range: unknown) => {
        const res = await fetch(`${emu.url}/api/v2/query`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            site_id: 'site0001.example.com',
            metrics: ['visitors'],
            dimensions: ['time'],
            date_range,
          }),
        })
        const body = (await res.json()) as { results: { dimensions: string[] }[] }
        return body.results.map((r) => r.dimensions[0] as string)
      }
      // Two whole days are 47 whole hours: hourly buckets.
      const twoDays = await labels(['2024-05-20', '2024-05-21'])
      expect(twoDays.length).toBeGreaterThan(0)
      expect(twoDays.every((l) => / \d{2}:00:00$/.test(l))).toBe(true)
      // Ninety days: weekly buckets, each labelled by its Monday (or the range's first day).
      const quarter = await labels(['2024-03-01', '2024-05-29'])
      expect(quarter.length).toBeGreaterThan(0)
      expect(quarter.length).toBeLessThanOrEqual(14)
      const mondays = quarter.filter((l) => l !== '2024-03-01')
      expect(mondays.every((l) => new Date(`${l}T00:00:00Z`).getUTCDay() === 1)).toBe(true)
    } finally {
      await emu.close()
    }
  })

  it('still answers stats for a site by its domain before a rename, and reads only `Bearer ` as a key', async () => {
    const emu = await startPlausibleEmulator({ sites: 1 })
    try {
      const renamed = await fetch(`${emu.url}/api/v1/sites/site0001.example.com`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ domain: 'renamed.example.com' }),
      })
      expect(renamed.status).toBe(200)
      const query = (site_id: string, headers: Record<string, string> = auth) =>
        fetch(`${emu.url}/api/v2/query`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ site_id, metrics: ['visitors'], date_range: 'all' }),
        })
      expect((await query('renamed.example.com')).status).toBe(200)
      expect((await query('site0001.example.com')).status).toBe(200)
      const lower = await query('renamed.example.com', {
        authorization: `bearer ${DEFAULT_PLAUSIBLE_API_KEY}`,
        'content-type': 'application/json',
      })
      expect(lower.status).toBe(401)
      expect(await lower.json()).toEqual({
        error: 'Missing API key. Please use a valid Plausible API key as a Bearer Token.',
      })
    } finally {
      await emu.close()
    }
  })

  it('counts a visit in every hour it was active in when hourly buckets come from sessions only', async () => {
    const emu = await startPlausibleEmulator({ sites: 1 })
    try {
      const visits = emu.state.visits.get('site0001.example.com')
      const template = visits?.[0]
      if (!visits || !template) throw new Error('no seeded visit')
      const site = emu.state.sites.get('site0001.example.com')
      if (!site) throw new Error('no site')
      site.timezone = 'Etc/UTC'
      const start = Date.parse('2020-01-01T10:50:00Z')
      const end = Date.parse('2020-01-01T11:10:00Z')
      visits.push({
        ...template,
        start,
        end,
        events: [{ name: 'pageview', at: start, page: '/' }],
      })
      const hours = async (metrics: string[]) => {
        const res = await fetch(`${emu.url}/api/v2/query`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            site_id: 'site0001.example.com',
            metrics,
            dimensions: ['time:hour'],
            date_range: ['2020-01-01', '2020-01-01'],
          }),
        })
        const body = (await res.json()) as { results: { dimensions: string[] }[] }
        return body.results.map((r) => r.dimensions[0])
      }
      expect(await hours(['visits'])).toEqual(['2020-01-01 10:00:00', '2020-01-01 11:00:00'])
      // pageviews come from the events table: the view happened at 10:50 only.
      expect(await hours(['pageviews'])).toEqual(['2020-01-01 10:00:00'])
    } finally {
      await emu.close()
    }
  })

  it('reads dates of the years 0 to 99 as those years, not as 1900 to 1999', async () => {
    const emu = await startPlausibleEmulator({ sites: 1, visits: 5 })
    try {
      const visits = emu.state.visits.get('site0001.example.com') ?? []
      const seeded = visits[0] as (typeof visits)[number]
      // A visit on Thursday 0050-03-10 (proleptic Gregorian); Date.UTC had read the window as 1950's days.
      const at = Date.parse('0050-03-10T12:00:00Z')
      visits.push({ ...seeded, start: at, end: at, events: seeded.events.map((e) => ({ ...e, at })) })
      const res = await fetch(`${emu.url}/api/v2/query`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          site_id: 'site0001.example.com',
          metrics: ['visitors'],
          date_range: ['0050-03-01', '0050-03-20'],
          dimensions: ['time:week'],
        }),
      })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { results: unknown[]; query: { date_range: string[] } }
      expect(body.query.date_range).toEqual(['0050-03-01T00:00:00+00:00', '0050-03-20T23:59:59+00:00'])
      // Labelled by its Monday.
      expect(body.results).toEqual([{ metrics: [1], dimensions: ['0050-03-07'] }])
    } finally {
      await emu.close()
    }
  })
})

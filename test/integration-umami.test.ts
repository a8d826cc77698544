import { describe, expect, it } from 'vitest'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator, type UmamiEmulator } from '../emulators/umami/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>

describe('Umami through Unigate', () => {
  let h: Harness
  let emu: UmamiEmulator
  let cloud: string
  let selfHosted: string
  let site: string
  const base = (c: string) => `/analytics/${c}`

  const requests = (pathPart: string) => emu.requests().filter((r) => r.path.includes(pathPart))

  useEmulatorSuite({
    start: () => startUmamiEmulator({ seed: 7, websites: 5, sessions: 60 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      const connect = (auth: Rec) => createConnection(h, { integration_type: 'umami', auth })
      cloud = await connect({ api_key: DEFAULT_UMAMI_API_KEY, hosting: 'cloud', api_url: `${emu.url}/v1` })
      selfHosted = await connect({ api_key: DEFAULT_UMAMI_API_KEY, api_url: `${emu.url}/api` })
      site = [...emu.state.websites.values()][0]?.id as string
    },
  })

  it('authenticates Cloud with x-umami-api-key under /v1 and self-hosted with Bearer under /api', async () => {
    expect((await h.api('GET', `${base(cloud)}/property`)).status).toBe(200)
    expect((await h.api('GET', `${base(selfHosted)}/property`)).status).toBe(200)
    const [c, s] = requests('/websites')
    expect(c).toMatchObject({ path: '/v1/websites', headers: { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY } })
    expect(c?.headers.authorization).toBeUndefined()
    expect(s).toMatchObject({
      path: '/api/websites',
      headers: { authorization: `Bearer ${DEFAULT_UMAMI_API_KEY}` },
    })
  })

  it('refuses a connection whose key Umami rejects', async () => {
    const res = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'umami', auth: { api_key: 'wrong', api_url: `${emu.url}/api` } },
    })
    expect(res.status).toBeGreaterThanOrEqual(400)
  })

  it('pages websites with page/pageSize, across page boundaries', async () => {
    const names = [...emu.state.websites.values()].map((w) => w.name).sort()
    const page = async (offset: number, limit: number) =>
      (
        await h.api<Rec[]>('GET', `${base(cloud)}/property`, { query: { offset, limit, sort: 'name' } })
      ).body.map((p) => p.name)
    expect(await page(0, 2)).toEqual(names.slice(0, 2))
    expect(await page(2, 2)).toEqual(names.slice(2, 4))
    emu.clearRequests()
    expect(await page(3, 2)).toEqual(names.slice(3, 5))
    expect(requests('/websites').map((r) => [r.query.page, r.query.pageSize])).toEqual([
      ['2', '2'],
      ['3', '2'],
    ])
  })

  it('searches and sorts websites at Umami, and refuses what it cannot filter', async () => {
    const res = await h.api<Rec[]>('GET', `${base(cloud)}/property`, {
      query: { query: 'site 002', sort: 'created_at', order: 'desc' },
    })
    expect(res.body.map((p) => p.name)).toEqual(['Site 002'])
    expect(requests('/websites')[0]?.query).toMatchObject({
      search: 'site 002',
      orderBy: 'createdAt',
      sortDescending: 'true',
    })
    const updated = await h.api('GET', `${base(cloud)}/property`, { query: { updated_gte: '2024-01-01' } })
    expect(updated.status).toBe(501)
    expect(updated.body).toMatchObject({ message: expect.stringContaining('updated_gte') })
  })

  it('lists team websites too, and the websites of one team under parent_id', async () => {
    const team = 'b0c1d2e3-0000-4000-8000-00000000a001'
    const all = await h.api<Rec[]>('GET', `${base(cloud)}/property`)
    expect(all.body.filter((p) => p.parent_id === team).map((p) => p.name)).toEqual(['Site 003'])
    expect(requests('/websites')[0]?.query.includeTeams).toBe('true')
    const byTeam = await h.api<Rec[]>('GET', `${base(cloud)}/property`, { query: { parent_id: team } })
    expect(byTeam.body.map((p) => [p.name, p.parent_id])).toEqual([['Site 003', team]])
    expect(requests('/websites')[1]?.path).toBe(`/v1/teams/${team}/websites`)
  })

  it('creates, reads, updates and removes a website', async () => {
    const created = await h.api<Rec>('POST', `${base(cloud)}/property`, {
      body: { name: 'Shop', raw: { domain: 'shop.example.com' } },
      query: { fields: 'id,name,raw' },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ name: 'Shop', raw: { domain: 'shop.example.com' } })
    const id = created.body.id as string
    const patched = await h.api<Rec>('PATCH', `${base(cloud)}/property/${id}`, { body: { name: 'Shop 2' } })
    expect(patched.body).toMatchObject({ id, name: 'Shop 2' })
    expect(requests(`/websites/${id}`).find((r) => r.method === 'POST')?.body).toEqual({ name: 'Shop 2' })
    expect((await h.api<Rec>('GET', `${base(cloud)}/property/${id}`)).body).toMatchObject({ name: 'Shop 2' })
    expect((await h.api('DELETE', `${base(cloud)}/property/${id}`)).status).toBe(200)
    expect((await h.api('GET', `${base(cloud)}/property/${id}`)).status).toBe(404)
    const noDomain = await h.api('POST', `${base(cloud)}/property`, { body: { name: 'x' } })
    expect(noDomain.status).toBe(400)
    expect(noDomain.body).toMatchObject({ message: expect.stringContaining('raw.domain') })
  })

  it('lists events of a website in a time window, paged, newest first', async () => {
    const start = '2024-05-20T00:00:00Z'
    const end = '2024-05-25T00:00:00Z'
    const expected = emu.state.events
      .filter(
        (e) => e.websiteId === site && e.createdAt >= Date.parse(start) && e.createdAt < Date.parse(end),
      )
      .reverse()
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(12)
    const list = async (offset: number) =>
      (
        await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
          query: { property_id: site, start_gte: start, end_lt: end, limit: 5, offset },
        })
      ).body.map((e) => e.id)
    expect([...(await list(0)), ...(await list(5)), ...(await list(10))]).toEqual(expected.slice(0, 15))
    expect(requests('/events')[0]?.query).toMatchObject({
      startAt: String(Date.parse(start)),
      endAt: String(Date.parse(end) - 1),
      page: '1',
      pageSize: '5',
    })
  })

  it('filters events by type and visitor at Umami, and explains the types it cannot', async () => {
    const views = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, type: 'PAGE_VIEW' },
    })
    expect(views.body.length).toBeGreaterThan(0)
    expect(views.body.every((e) => e.event_type === 'PAGE_VIEW' && e.name === 'pageview')).toBe(true)
    expect(requests('/events')[0]?.query.eventType).toBe('1')
    const visitor = [...emu.state.sessions.values()].find(
      (s) => s.websiteId === site && s.distinctId,
    )?.distinctId
    const byVisitor = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, visitor_id: String(visitor) },
    })
    expect(byVisitor.body.length).toBeGreaterThan(0)
    expect(byVisitor.body.every((e) => e.visitor_id === visitor)).toBe(true)
    const click = await h.api<Rec>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, type: 'CLICK' },
    })
    expect(click.status).toBe(400)
    expect(click.body.message).toContain('PAGE_VIEW or CUSTOM')
    const noSite = await h.api<Rec>('GET', `${base(cloud)}/event`)
    expect(noSite.status).toBe(400)
    expect(noSite.body.message).toContain('property_id')
  })

  it('fetches the slow device fields from sessions only when asked, once per session', async () => {
    const fast = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, limit: 10 },
    })
    expect(fast.body[0]?.browser).toBeUndefined()
    expect(requests('/sessions/')).toHaveLength(0)
    const slow = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, limit: 10, fields: ['id', 'session_id', 'browser', 'country_code', 'raw'] },
    })
    const first = slow.body[0] as Rec
    const sessionId = String(first.session_id).split(':')[1] as string
    const session = emu.state.sessions.get(sessionId)
    expect(first).toMatchObject({ browser: session?.browser, country_code: session?.country })
    expect(first.raw).toMatchObject({ id: first.id, sessionId })
    const distinct = new Set(slow.body.map((e) => e.session_id)).size
    expect(requests('/sessions/')).toHaveLength(distinct)
  })

  it('lists a session and its events through the composite session id', async () => {
    const sessions = await h.api<Rec[]>('GET', `${base(selfHosted)}/session`, {
      query: { property_id: site, limit: 3, fields: 'id,page_views,landing_page,start_at' },
    })
    expect(sessions.status).toBe(200)
    expect(sessions.body).toHaveLength(3)
    const s = sessions.body[0] as Rec
    expect(String(s.id)).toMatch(new RegExp(`^${site}:`))
    expect(typeof s.landing_page).toBe('string')
    expect(requests('/activity')).toHaveLength(3)
    const one = await h.api<Rec>('GET', `${base(selfHosted)}/session/${encodeURIComponent(String(s.id))}`)
    expect(one.body).toMatchObject({ id: s.id, property_id: site, page_views: s.page_views })
    const events = await h.api<Rec[]>('GET', `${base(selfHosted)}/event`, {
      query: { session_id: String(s.id) },
    })
    expect(events.body.length).toBeGreaterThan(0)
    expect(events.body.every((e) => e.session_id === s.id)).toBe(true)
    expect(events.body.filter((e) => e.event_type === 'PAGE_VIEW')).toHaveLength(Number(s.page_views))
    expect((await h.api('GET', `${base(selfHosted)}/session/not-composite`)).status).toBe(404)
  })

  it('records an event, answering our own id, and Umami then lists it', async () => {
    const created = await h.api<Rec>('POST', `${base(cloud)}/event`, {
      body: {
        name: 'signup',
        property_id: site,
        page_url: 'https://site1.example.com/register',
        visitor_id: 'u_new',
        utm_source: 'mail',
        metadata: { plan: { tier: 'pro' } },
      },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ name: 'signup', event_type: 'CUSTOM', property_id: site })
    expect(String(created.body.id)).toMatch(/^[0-9a-f-]{36}$/)
    const sent = requests('/api/send')[0]
    expect(sent?.headers['user-agent']).toMatch(/^Mozilla/)
    expect(sent?.body).toMatchObject({
      type: 'event',
      payload: {
        website: site,
        name: 'signup',
        url: '/register?utm_source=mail',
        hostname: 'site1.example.com',
        id: 'u_new',
      },
    })
    const listed = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: {
        property_id: site,
        visitor_id: 'u_new',
        start_gte: new Date(Date.now() - 60_000).toISOString(),
      },
    })
    expect(listed.body.map((e) => e.name)).toEqual(['signup'])
    expect(listed.body[0]?.session_id).toBe(created.body.session_id)
  })

  it('reports totals, a daily series and a breakdown, as one report per row', async () => {
    const q = { property_id: site, start_gte: '2024-05-25T00:00:00Z', end_lt: '2024-05-28T00:00:00Z' }
    const totals = await h.api<Rec[]>('GET', `${base(cloud)}/report`, { query: q })
    expect(totals.body).toHaveLength(1)
    const metrics = totals.body[0]?.metrics as Rec[]
    expect(metrics.map((m) => m.type)).toEqual([
      'USERS',
      'SESSIONS',
      'PAGE_VIEWS',
      'BOUNCE_RATE',
      'AVERAGE_SESSION_DURATION',
      'PAGES_PER_SESSION',
    ])
    const views = metrics.find((m) => m.type === 'PAGE_VIEWS')?.value
    const daily = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: { ...q, dimension: 'DATE', type: 'PAGE_VIEWS' },
    })
    expect(daily.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value)).toEqual([
      '2024-05-25',
      '2024-05-26',
      '2024-05-27',
    ])
    expect(daily.body[0]).toMatchObject({
      start_at: '2024-05-25T00:00:00.000Z',
      end_at: '2024-05-26T00:00:00.000Z',
    })
    expect(daily.body.reduce((sum, r) => sum + Number((r.metrics as Rec[])[0]?.value), 0)).toBe(views)
    expect(requests('/pageviews')[0]?.query).toMatchObject({ unit: 'day', timezone: 'UTC' })
    const countries = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: { ...q, dimension: 'COUNTRY', limit: 2 },
    })
    expect(countries.body).toHaveLength(2)
    expect(countries.body[0]?.metrics).toEqual([
      expect.objectContaining({ type: 'USERS', dimension: 'COUNTRY', dimension_value: expect.any(String) }),
    ])
    expect(requests('/metrics')[0]?.query).toMatchObject({ type: 'country', limit: '2', offset: '0' })
  })

  it('answers 501 for report dimensions and metrics Umami does not have, 400 for unknown ones', async () => {
    const week = await h.api<Rec>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, dimension: 'WEEK' },
    })
    expect(week.status).toBe(501)
    expect(week.body.message).toContain('Umami (umami) cannot break reports down by WEEK')
    const revenue = await h.api<Rec>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, type: 'REVENUE' },
    })
    expect(revenue.status).toBe(501)
    const bogus = await h.api<Rec>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, dimension: 'PLANET' },
    })
    expect(bogus.status).toBe(400)
  })

  it('answers 501 naming the integration for what Umami cannot do', async () => {
    for (const [method, path] of [
      ['GET', '/visitor'],
      ['GET', '/event/some-id'],
      ['POST', '/visitor'],
    ] as const) {
      const res = await h.api<Rec>(method, `${base(cloud)}${path}`, method === 'POST' ? { body: {} } : {})
      expect(res.status).toBe(501)
      expect(res.body.message).toContain('Umami (umami)')
    }
  })

  it('retries a 503, then succeeds', async () => {
    emu.fault({ status: 503, times: 1, pathPattern: '/websites$' })
    const res = await h.api('GET', `${base(cloud)}/property`)
    expect(res.status).toBe(200)
    expect(requests('/websites')).toHaveLength(2)
  })

  it('passes on a persistent 429 as 429, a 500 as 502, and a rejected key as 403', async () => {
    emu.fault({ status: 429, times: 10, pathPattern: '/websites$' })
    const limited = await h.api<Rec>('GET', `${base(cloud)}/property`)
    expect(limited.status).toBe(429)
    expect(requests('/websites')).toHaveLength(3)
    emu.clearFaults()
    emu.fault({ status: 500, pathPattern: '/websites$' })
    const failed = await h.api<Rec>('GET', `${base(cloud)}/property`)
    expect(failed.status).toBe(502)
    expect(failed.body.message).toContain('Internal server error')
    emu.fault({ status: 401, pathPattern: '/websites$' })
    expect((await h.api('GET', `${base(cloud)}/property`)).status).toBe(403)
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'umami')
    expect(Object.keys(support).sort()).toEqual([
      'analytics_event',
      'analytics_property',
      'analytics_report',
      'analytics_session',
    ])
    const sessionId = `${site}:${[...emu.state.sessions.values()].find((s) => s.websiteId === site)?.id}`
    const ids: Record<string, string> = { analytics_property: site, analytics_session: sessionId }
    const bodies: Record<string, Rec> = {
      analytics_property: { name: 'Matrix', raw: { domain: 'matrix.example.com' } },
      analytics_event: { name: 'matrix', property_id: site, page_url: '/m' },
    }
    await expectSupportMatrixAnswers(h, base(cloud), support, {
      query: ({ object }) => (object === 'analytics_property' ? undefined : { property_id: site }),
      body: ({ object, method }) => (method === 'create' ? (bodies[object] ?? {}) : { name: 'Site 001' }),
      // remove creates what it removes; get sends the id encoded, update and patch as it is
      id: async ({ object, method, path }) =>
        method === 'remove'
          ? String((await h.api<Rec>('POST', path, { body: bodies[object] })).body.id)
          : method === 'get'
            ? encodeURIComponent(ids[object] ?? 'x')
            : (ids[object] ?? 'x'),
    })
  })
})

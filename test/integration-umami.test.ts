import { describe, expect, it } from 'vitest'
import {
  DEFAULT_UMAMI_API_KEY,
  DEFAULT_UMAMI_LOGIN_TOKEN,
  startUmamiEmulator,
  type UmamiEmulator,
} from '../emulators/umami/index.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import { startRecorder } from './support/recorder.js'

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
      selfHosted = await connect({ api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` })
      site = [...emu.state.websites.values()][0]?.id as string
    },
  })

  it('authenticates Cloud with x-umami-api-key under /v1 and self-hosted with a Bearer login token under /api', async () => {
    expect((await h.api('GET', `${base(cloud)}/property`)).status).toBe(200)
    expect((await h.api('GET', `${base(selfHosted)}/property`)).status).toBe(200)
    const [c, s] = requests('/websites')
    expect(c).toMatchObject({ path: '/v1/websites', headers: { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY } })
    expect(c?.headers.authorization).toBeUndefined()
    expect(s).toMatchObject({
      path: '/api/websites',
      headers: { authorization: `Bearer ${DEFAULT_UMAMI_LOGIN_TOKEN}` },
    })
  })

  it('refuses a self-hosted connection made with a Cloud-style API key: self-hosted has login tokens only', async () => {
    const res = await h.api<Rec>('POST', '/unified/connection', {
      body: {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_API_KEY, api_url: `${emu.url}/api` },
      },
    })
    expect(res.status).toBeGreaterThanOrEqual(400)
  })

  it('refuses a connection whose key Umami rejects', async () => {
    const res = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'umami', auth: { api_key: 'wrong', api_url: `${emu.url}/api` } },
    })
    expect(res.status).toBeGreaterThanOrEqual(400)
  })

  it('refuses a raw page or pageSize on any list, before calling Umami', async () => {
    emu.clearRequests()
    for (const [path, raw, query] of [
      [`${base(cloud)}/property`, 'page=1', {}],
      [`${base(selfHosted)}/event`, 'pageSize=5', { property_id: site }],
      [`${base(selfHosted)}/session`, 'page=2', { property_id: site }],
    ] as const) {
      const res = await h.api<Rec>('GET', path, { query: { raw, ...query } })
      expect(res.status, path).toBe(400)
      expect(String(res.body.message)).toBe(
        `raw: '${raw.split('=')[0]}' is set by Unigate for Umami; Unigate pages with limit and offset`,
      )
    }
    // The range and the series' unit are Unigate's too: a raw one would relabel the buckets.
    const series = await h.api<Rec>('GET', `${base(selfHosted)}/report`, {
      query: { raw: 'startAt=0', property_id: site },
    })
    expect(series.status).toBe(400)
    expect(String(series.body.message)).toBe(
      "raw: 'startAt' is set by Unigate for Umami; use start_gte and end_lt",
    )
    expect(emu.requests()).toEqual([])
  })

  it('refuses a raw parameter Umami reads as a unified filter or that Unigate sets, instead of one silently replacing the other', async () => {
    emu.clearRequests()
    for (const [path, raw, query, why] of [
      [`${base(selfHosted)}/event`, 'search=checkout', { property_id: site, query: 'home' }, 'use query'],
      [
        `${base(selfHosted)}/event`,
        'distinctId=someone',
        { property_id: site, visitor_id: 'v1' },
        'use visitor_id',
      ],
      [`${base(selfHosted)}/session`, 'search=x', { property_id: site }, 'use query'],
      [`${base(selfHosted)}/session`, 'distinctId=someone', { property_id: site }, 'use visitor_id'],
      [
        `${base(selfHosted)}/report`,
        'type=url',
        { property_id: site, dimension: 'COUNTRY' },
        'use dimension',
      ],
      [
        `${base(selfHosted)}/report`,
        'limit=500',
        { property_id: site, dimension: 'COUNTRY' },
        'Unigate pages with limit and offset',
      ],
      [
        `${base(selfHosted)}/report`,
        'offset=3',
        { property_id: site, dimension: 'COUNTRY' },
        'Unigate pages with limit and offset',
      ],
    ] as const) {
      const res = await h.api<Rec>('GET', path, { query: { raw, ...query } })
      expect(res.status, `${path} ${raw}`).toBe(400)
      expect(String(res.body.message)).toBe(`raw: '${raw.split('=')[0]}' is set by Unigate for Umami; ${why}`)
    }
    const both = await h.api<Rec>('GET', `${base(selfHosted)}/event`, {
      query: { raw: 'eventType=3', property_id: site, type: 'PAGE_VIEW' },
    })
    expect(both.status).toBe(400)
    expect(String(both.body.message)).toContain('eventType and type')
    expect(emu.requests()).toEqual([])
    // Alone, a raw eventType still reaches Umami (LINK and PIXEL events have no unified type filter).
    const alone = await h.api<Rec[]>('GET', `${base(selfHosted)}/event`, {
      query: { raw: 'eventType=1', property_id: site, limit: 2 },
    })
    expect(alone.status).toBe(200)
    expect(requests('/events').at(-1)?.query).toMatchObject({ eventType: '1' })
  })

  it('reads the whole unordered website list and orders and pages it itself', async () => {
    const names = [...emu.state.websites.values()].map((w) => w.name).sort()
    const page = async (offset: number, limit: number, order?: string) =>
      (
        await h.api<Rec[]>('GET', `${base(cloud)}/property`, {
          query: { offset, limit, sort: 'name', ...(order ? { order } : {}) },
        })
      ).body.map((p) => p.name)
    expect(await page(0, 2)).toEqual(names.slice(0, 2))
    expect(await page(2, 2)).toEqual(names.slice(2, 4))
    emu.clearRequests()
    expect(await page(3, 2)).toEqual(names.slice(3, 5))
    expect(await page(0, 2, 'desc')).toEqual([...names].reverse().slice(0, 2))
    const sent = requests('/websites')
    expect(sent.map((r) => [r.query.page, r.query.pageSize])).toEqual([
      ['1', '100'],
      ['1', '100'],
    ])
    // Umami drops orderBy/sortDescending on this route: sending them would only suggest an order.
    expect(sent.every((r) => r.query.orderBy === undefined && r.query.sortDescending === undefined)).toBe(
      true,
    )
  })

  it('searches websites at Umami and sorts them here, and refuses what it cannot filter', async () => {
    const res = await h.api<Rec[]>('GET', `${base(cloud)}/property`, {
      query: { query: 'site 00', sort: 'created_at', order: 'desc' },
    })
    const expected = [...emu.state.websites.values()]
      .filter((w) => w.deletedAt === null)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((w) => w.name)
    expect(res.body.map((p) => p.name)).toEqual(expected)
    expect(requests('/websites')[0]?.query).toMatchObject({ search: 'site 00' })
    const updated = await h.api('GET', `${base(cloud)}/property`, { query: { updated_gte: '2024-01-01' } })
    expect(updated.status).toBe(501)
    expect(updated.body).toMatchObject({ message: expect.stringContaining('updated_gte') })
  })

  it('answers 404 for a website Umami refuses with 401 while the key itself still works', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000'
    const res = await h.api<Rec>('GET', `${base(cloud)}/property/${unknown}`)
    expect(res.status).toBe(404)
    expect(res.body.message).toContain(unknown)
    const report = await h.api<Rec>('GET', `${base(selfHosted)}/report`, { query: { property_id: unknown } })
    expect(report.status).toBe(404)
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

  it("answers a team it cannot see under parent_id with a 404 naming it, not as the connection's credentials", async () => {
    // Umami answers 401 for a team the caller is not in (canViewTeam), as it does for a website it cannot see.
    const unknown = 'b0c1d2e3-0000-4000-8000-0000000ffff9'
    const res = await h.api<Rec>('GET', `${base(cloud)}/property`, { query: { parent_id: unknown } })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body.message).toContain('parent_id')
    expect(res.body.message).toContain(unknown)
    const connection = await h.api<Rec>('GET', `/unified/connection/${cloud}`)
    expect(connection.body.is_healthy).not.toBe(false)
    expect((await h.api('GET', `${base(cloud)}/property`)).status).toBe(200)
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
    emu.clearRequests()
    const byVisitor = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, visitor_id: String(visitor), fields: 'id,visitor_id' },
    })
    expect(byVisitor.body.length).toBeGreaterThan(0)
    expect(byVisitor.body.every((e) => e.visitor_id === visitor)).toBe(true)
    expect(requests('/events')[0]?.query.distinctId).toBe(visitor)
    // The filter names the visitor of every row: no session read is needed for it.
    expect(requests('/sessions/')).toHaveLength(0)
    const click = await h.api<Rec>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, type: 'CLICK' },
    })
    expect(click.status).toBe(400)
    expect(click.body.message).toContain('PAGE_VIEW, CUSTOM or PERFORMANCE')
    const noSite = await h.api<Rec>('GET', `${base(cloud)}/event`)
    expect(noSite.status).toBe(400)
    expect(noSite.body.message).toContain('property_id')
  })

  it('lists a web-vitals beacon as a PERFORMANCE event, not as a custom event named pageview', async () => {
    // Umami v3.1 stores `type: "performance"` beacons as events of type 5 in the website's event list.
    const own = await startUmamiEmulator({ seed: 7, websites: 1, sessions: 5 })
    try {
      const conn = await createConnection(h, {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_API_KEY, hosting: 'cloud', api_url: `${own.url}/v1` },
      })
      const ownSite = [...own.state.websites.values()][0]?.id as string
      const beacon = await fetch(`${own.url}/api/send`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Vitals',
        },
        body: JSON.stringify({
          type: 'performance',
          payload: { website: ownSite, url: '/vitals-probe', hostname: 'site1.example.com', lcp: 1200 },
        }),
      })
      expect(beacon.status).toBe(200)
      const from = new Date(Date.now() - 60_000).toISOString()
      const res = await h.api<Rec[]>('GET', `${base(conn)}/event`, {
        query: { property_id: ownSite, start_gte: from, fields: 'id,name,event_type,page_url' },
      })
      expect(res.status).toBe(200)
      const row = res.body.find((e) => String(e.page_url).endsWith('/vitals-probe'))
      expect(row).toMatchObject({ event_type: 'PERFORMANCE', name: 'performance' })
      const filtered = await h.api<Rec[]>('GET', `${base(conn)}/event`, {
        query: { property_id: ownSite, start_gte: from, type: 'PERFORMANCE' },
      })
      expect(filtered.body.map((e) => e.event_type)).toEqual(['PERFORMANCE'])
    } finally {
      await own.close()
    }
  })

  it('maps device and place from the event rows, and reads sessions only for visitor and region', async () => {
    const fast = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, limit: 10 },
    })
    const row = fast.body[0] as Rec
    const own = emu.state.sessions.get(String(row.session_id).split(':')[1] as string)
    expect(row).toMatchObject({
      browser: own?.browser,
      os: own?.os,
      country_code: own?.country,
      city: own?.city,
    })
    expect(row.visitor_id).toBeUndefined()
    expect(requests('/sessions/')).toHaveLength(0)
    const slow = await h.api<Rec[]>('GET', `${base(cloud)}/event`, {
      query: { property_id: site, limit: 10, fields: ['id', 'session_id', 'visitor_id', 'region', 'raw'] },
    })
    const first = slow.body[0] as Rec
    const sessionId = String(first.session_id).split(':')[1] as string
    const session = emu.state.sessions.get(sessionId)
    expect(first.region).toBe(session?.region)
    expect(first.visitor_id).toEqual(session?.distinctId ?? undefined)
    expect(first.raw).toMatchObject({ id: first.id, sessionId })
    const withVisitor = slow.body.find((e) => e.visitor_id !== undefined)
    expect(withVisitor).toBeDefined()
    const distinct = new Set(slow.body.map((e) => e.session_id)).size
    expect(requests('/sessions/')).toHaveLength(distinct)
  })

  it("reads a session list row's visitor from the session detail only when asked", async () => {
    const visitor = [...emu.state.sessions.values()].find((s) => s.websiteId === site && s.distinctId)
    const rows = await h.api<Rec[]>('GET', `${base(cloud)}/session`, {
      query: { property_id: site, limit: 50, start_gte: '2024-01-01T00:00:00Z', fields: 'id,visitor_id' },
    })
    const row = rows.body.find((s) => s.id === `${site}:${visitor?.id}`)
    expect(row?.visitor_id).toBe(visitor?.distinctId)
    expect(requests('/sessions/').length).toBe(rows.body.length)
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

  it('sends events to a collect_url of another host without the key or login token', async () => {
    const collector = await startRecorder({
      status: 200,
      body: '{"cache":"c","sessionId":"s","visitId":"v"}',
    })
    try {
      for (const auth of [
        { api_key: DEFAULT_UMAMI_API_KEY, hosting: 'cloud', api_url: `${emu.url}/v1` },
        { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      ]) {
        const c = await createConnection(h, {
          integration_type: 'umami',
          auth: { ...auth, collect_url: `${collector.url}/collect` },
        })
        const created = await h.api<Rec>('POST', `${base(c)}/event`, {
          body: { name: 'signup', property_id: site, page_url: 'https://site1.example.com/' },
        })
        expect(created.status, created.text).toBe(200)
      }
      expect(collector.requests.map((r) => [r.method, r.path])).toEqual([
        ['POST', '/collect'],
        ['POST', '/collect'],
      ])
      for (const r of collector.requests) {
        expect(r.headers['x-umami-api-key']).toBeUndefined()
        expect(r.headers.authorization).toBeUndefined()
        expect(JSON.stringify(r)).not.toContain(DEFAULT_UMAMI_API_KEY)
        expect(JSON.stringify(r)).not.toContain(DEFAULT_UMAMI_LOGIN_TOKEN)
      }
    } finally {
      await collector.close()
    }
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
    // The collector takes no credentials: the API key stays off the request.
    expect(sent?.headers['x-umami-api-key']).toBeUndefined()
    expect(sent?.headers.authorization).toBeUndefined()
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

  it("adds an event create's raw parameters to the collector's payload, and refuses those it cannot take", async () => {
    const created = await h.api<Rec>('POST', `${base(cloud)}/event`, {
      query: { raw: new URLSearchParams({ tag: 'spring', language: 'fr-FR', screen: '390x844' }).toString() },
      body: { name: 'signup', property_id: site, page_url: '/register' },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(requests('/api/send')[0]?.body).toMatchObject({
      payload: { website: site, name: 'signup', tag: 'spring', language: 'fr-FR', screen: '390x844' },
    })
    expect(emu.state.events.at(-1)).toMatchObject({ eventName: 'signup', tag: 'spring' })
    emu.clearRequests()
    for (const [raw, body, message] of [
      ['url=/other', {}, "raw: 'url' is what Umami's collector reads page_url as; use page_url"],
      ['id=u_1', {}, "raw: 'id' is what Umami's collector reads visitor_id as; use visitor_id"],
      [
        'hostname=other.example',
        { page_url: 'https://site1.example.com/a' },
        "raw: 'hostname' is already set in the event sent to Umami (from page_url or the body's raw); give it once",
      ],
      ['tag=b', { raw: { tag: 'a' } }, "raw: 'tag' is already set in the event sent to Umami"],
      ['utm_source=x', {}, "raw: Umami's collector takes no 'utm_source' (it drops unknown payload fields)"],
    ] as const) {
      const res = await h.api<Rec>('POST', `${base(cloud)}/event`, {
        query: { raw },
        body: { name: 'signup', property_id: site, ...body },
      })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message), raw).toContain(message)
    }
    expect(requests('/api/send')).toEqual([])
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

  it('reports whole UTC hours only, which a ClickHouse server (Umami Cloud) counts exactly', async () => {
    // ClickHouse Umami answers reports from hourly rows: a window starting at 10:30 would count nothing
    // of 10:30-11:00, and the report would claim instants it did not count.
    const views = (from: number, to: number) =>
      emu.state.events.filter(
        (e) => e.websiteId === site && e.eventType === 1 && e.createdAt >= from && e.createdAt < to,
      ).length
    const from = Date.parse('2024-05-20T10:00:00Z')
    const to = Date.parse('2024-05-27T13:00:00Z')
    const whole = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: {
        property_id: site,
        start_gte: new Date(from).toISOString(),
        end_lt: new Date(to).toISOString(),
      },
    })
    expect(whole.status).toBe(200)
    const pageViews = ((whole.body[0]?.metrics ?? []) as Rec[]).find((m) => m.type === 'PAGE_VIEWS')?.value
    expect(pageViews).toBe(views(from, to))
    expect(views(from, to)).toBeGreaterThan(0)
    for (const conn of [cloud, selfHosted]) {
      const partial = await h.api<Rec>('GET', `${base(conn)}/report`, {
        query: {
          property_id: site,
          start_gte: '2024-05-20T10:30:00Z',
          end_lt: '2024-05-27T13:00:00Z',
          dimension: 'DATE',
        },
      })
      expect(partial.status).toBe(400)
      expect(String(partial.body.message)).toMatch(/^start_gte: Umami reports count whole UTC hours/)
    }
    emu.clearRequests()
    // Without a window: 30 days from a UTC hour to now (the current hour's row holds nothing after now).
    const before = Date.now()
    const recent = await h.api<Rec[]>('GET', `${base(cloud)}/report`, { query: { property_id: site } })
    expect(recent.status).toBe(200)
    const sent = requests('/stats')[0]?.query as Rec
    expect(Number(sent.startAt) % 3_600_000).toBe(0)
    expect(Number(sent.endAt) + 1).toBeGreaterThanOrEqual(before)
    expect(recent.body[0]?.end_at).toBe(new Date(Number(sent.endAt) + 1).toISOString())
    expect(recent.body[0]?.start_at).toBe(new Date(Number(sent.startAt)).toISOString())
    // From the start of the current hour, without end_lt: a report of this hour so far, not a 400 naming an
    // end_lt the caller never sent.
    const thisHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString()
    const sinceHour = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, start_gte: thisHour },
    })
    expect(sinceHour.status, JSON.stringify(sinceHour.body)).toBe(200)
    expect(sinceHour.body[0]?.start_at).toBe(thisHour)
    // An end after now need not be on the hour; one before now must.
    const soon = new Date(Date.now() + 90 * 60_000 + 17_000).toISOString()
    const toSoon = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, start_gte: thisHour, end_lt: soon },
    })
    expect(toSoon.status, JSON.stringify(toSoon.body)).toBe(200)
    const pastEnd = await h.api<Rec>('GET', `${base(cloud)}/report`, {
      query: { property_id: site, start_gte: '2024-05-20T10:00:00Z', end_lt: '2024-05-27T12:30:00Z' },
    })
    expect(pastEnd.status).toBe(400)
    expect(pastEnd.body.message).toMatch(/^end_lt: Umami reports count whole UTC hours/)
  })

  it("labels breakdowns and the series' sessions as the distinct visitors Umami counts", async () => {
    const q = { property_id: site, start_gte: '2024-05-01T00:00:00Z', end_lt: '2024-06-01T00:00:00Z' }
    const inRange = emu.state.events.filter(
      (e) =>
        e.websiteId === site &&
        e.eventType === 1 &&
        e.createdAt >= Date.parse(q.start_gte) &&
        e.createdAt < Date.parse(q.end_lt),
    )
    const pages = await h.api<Rec[]>('GET', `${base(cloud)}/report`, { query: { ...q, dimension: 'PAGE' } })
    expect(pages.body.length).toBeGreaterThan(0)
    for (const r of pages.body) {
      const m = (r.metrics as Rec[])[0] as Rec
      expect(m.type).toBe('USERS')
      const sessions = new Set(inRange.filter((e) => e.urlPath === m.dimension_value).map((e) => e.sessionId))
      expect(m.value).toBe(sessions.size)
    }
    const asViews = await h.api<Rec>('GET', `${base(cloud)}/report`, {
      query: { ...q, dimension: 'PAGE', type: 'PAGE_VIEWS' },
    })
    expect(asViews.status).toBe(501)
    const daily = await h.api<Rec[]>('GET', `${base(cloud)}/report`, { query: { ...q, dimension: 'DATE' } })
    expect(((daily.body[0] as Rec).metrics as Rec[]).map((m) => m.type)).toEqual(['PAGE_VIEWS', 'USERS'])
  })

  it('reads an hourly series over 60 days in pieces Umami keeps hourly, never as mislabelled days', async () => {
    emu.clearRequests()
    const q = { property_id: site, start_gte: '2024-04-01T00:00:00Z', end_lt: '2024-05-31T00:00:00Z' }
    const res = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: { ...q, dimension: 'HOUR', type: 'PAGE_VIEWS', limit: 1000 },
    })
    expect(res.status).toBe(200)
    const calls = requests('/pageviews').map((r) => [Number(r.query.startAt), Number(r.query.endAt)])
    expect(calls).toEqual([
      [Date.parse('2024-04-01T00:00:00Z'), Date.parse('2024-05-01T00:00:00Z') - 1],
      [Date.parse('2024-05-01T00:00:00Z'), Date.parse('2024-05-31T00:00:00Z') - 1],
    ])
    const hours = new Map<string, number>()
    for (const e of emu.state.events) {
      if (e.websiteId !== site || e.eventType !== 1) continue
      if (e.createdAt < Date.parse(q.start_gte) || e.createdAt >= Date.parse(q.end_lt)) continue
      const hour = `${new Date(e.createdAt).toISOString().slice(0, 13)}:00`
      hours.set(hour, (hours.get(hour) ?? 0) + 1)
    }
    const got = new Map(
      res.body.map((r) => {
        const m = (r.metrics as Rec[])[0] as Rec
        return [String(m.dimension_value), m.value]
      }),
    )
    expect(got).toEqual(hours)
    expect(res.body[0]?.end_at).not.toBe(undefined)
    const first = res.body[0] as Rec
    expect(Date.parse(String(first.end_at)) - Date.parse(String(first.start_at))).toBe(3_600_000)
  })

  it('reads a self-hosted hourly series in 48-hour pieces, which Umami before v3.1 keeps hourly', async () => {
    // v2.x-v3.0.3 replace hours by days beyond 48 hours without a word; a self-hosted server may run them.
    const older = await startUmamiEmulator({ seed: 7, websites: 1, sessions: 60, release: '3.0' })
    try {
      const conn = await createConnection(h, {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${older.url}/api` },
      })
      const olderSite = [...older.state.websites.values()][0]?.id as string
      const q = { property_id: olderSite, start_gte: '2024-05-01T00:00:00Z', end_lt: '2024-05-08T00:00:00Z' }
      const res = await h.api<Rec[]>('GET', `${base(conn)}/report`, {
        query: { ...q, dimension: 'HOUR', type: 'PAGE_VIEWS', limit: 1000 },
      })
      expect(res.status).toBe(200)
      const calls = older.requests().filter((r) => r.path.endsWith('/pageviews'))
      expect(calls.map((r) => new Date(Number(r.query.startAt)).toISOString())).toEqual([
        '2024-05-01T00:00:00.000Z',
        '2024-05-03T00:00:00.000Z',
        '2024-05-05T00:00:00.000Z',
        '2024-05-07T00:00:00.000Z',
      ])
      const hours = new Map<string, number>()
      for (const e of older.state.events) {
        if (e.websiteId !== olderSite || e.eventType !== 1) continue
        if (e.createdAt < Date.parse(q.start_gte) || e.createdAt >= Date.parse(q.end_lt)) continue
        const hour = `${new Date(e.createdAt).toISOString().slice(0, 13)}:00`
        hours.set(hour, (hours.get(hour) ?? 0) + 1)
      }
      expect(hours.size).toBeGreaterThan(10)
      const got = new Map(
        res.body.map((r) => {
          const m = (r.metrics as Rec[])[0] as Rec
          return [String(m.dimension_value), m.value]
        }),
      )
      expect(got).toEqual(hours)
    } finally {
      await older.close()
    }
  })

  it('reads a daily series over nine months in pieces of at most six calendar months', async () => {
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `${base(cloud)}/report`, {
      query: {
        property_id: site,
        start_gte: '2023-09-01T00:00:00Z',
        end_lt: '2024-06-01T00:00:00Z',
        dimension: 'DATE',
        limit: 500,
      },
    })
    expect(res.status).toBe(200)
    expect(requests('/pageviews').map((r) => new Date(Number(r.query.startAt)).toISOString())).toEqual([
      '2023-09-01T00:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
    ])
    expect(res.body.length).toBeGreaterThan(20)
    expect(
      res.body.every((r) => /^\d{4}-\d{2}-\d{2}$/.test(String((r.metrics as Rec[])[0]?.dimension_value))),
    ).toBe(true)
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
    expect(failed.body.message).toContain('Server error')
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

describe('Umami through Unigate, on a connection that may queue few calls', () => {
  let h: Harness
  let emu: UmamiEmulator
  let conn: string
  useEmulatorSuite({
    start: () => startUmamiEmulator({ seed: 7, websites: 2, sessions: 60 }),
    harness: () =>
      startHarness('sqlite', {
        outbound: { ...testConfig('sqlite').outbound, connectionConcurrency: 2, connectionQueue: 4 },
      }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      })
    },
  })

  it("lists a page of sessions with their activity fields, reading a few at a time within the connection's queue", async () => {
    const site = [...emu.state.websites.values()][0]?.id as string
    const res = await h.api<Rec[]>('GET', `/analytics/${conn}/session`, {
      query: { property_id: site, limit: 100, fields: 'id,landing_page', start_gte: '2000-01-01T00:00:00Z' },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.length).toBeGreaterThan(6)
    expect(emu.requests().filter((r) => r.path.endsWith('/activity')).length).toBe(res.body.length)
  })
})

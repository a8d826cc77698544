import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PLAUSIBLE_API_KEY,
  type PlausibleEmulator,
  startPlausibleEmulator,
} from '../emulators/plausible/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>

describe('Plausible through Unigate', () => {
  let h: Harness
  let emu: PlausibleEmulator
  let conn: string
  const site = 'site0001.example.com'
  const base = () => `/analytics/${conn}`
  const requests = (pathPart: string) => emu.requests().filter((r) => r.path.includes(pathPart))

  useEmulatorSuite({
    start: () => startPlausibleEmulator({ seed: 3, sites: 250, visits: 400 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'plausible',
        auth: { api_key: DEFAULT_PLAUSIBLE_API_KEY, api_url: emu.url },
      })
    },
  })

  it('refuses a raw after, limit or team_id on sites, which Unigate sets, before calling Plausible', async () => {
    emu.clearRequests()
    for (const [raw, instead] of [
      ['after=x', 'Unigate pages with limit and offset'],
      ['limit=5', 'Unigate pages with limit and offset'],
      ['team_id=t1', 'use the parent_id filter'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/property`, { query: { raw } })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message)).toBe(
        `raw: '${raw.split('=')[0]}' is set by Unigate for Plausible; ${instead}`,
      )
    }
    expect(requests('/api/v1/sites')).toEqual([])
  })

  it('pages sites with remembered cursors: page N costs one call once page N-1 was read', async () => {
    const domains = emu.state.orderedSites().map((s) => s.domain)
    const page = async (offset: number, limit = 10) =>
      (await h.api<Rec[]>('GET', `${base()}/property`, { query: { offset, limit } })).body.map((p) => p.id)
    expect(await page(150)).toEqual(domains.slice(150, 160))
    expect(requests('/api/v1/sites')).toHaveLength(2)
    emu.clearRequests()
    expect(await page(0)).toEqual(domains.slice(0, 10))
    expect(await page(160)).toEqual(domains.slice(160, 170))
    expect(await page(200)).toEqual(domains.slice(200, 210))
    expect(await page(245, 10)).toEqual(domains.slice(245, 250))
    const calls = requests('/api/v1/sites')
    expect(calls).toHaveLength(4)
    expect(calls.every((r) => r.query.limit === '100')).toBe(true)
    expect(calls.slice(1).every((r) => typeof r.query.after === 'string')).toBe(true)
    expect(await page(95)).toEqual(domains.slice(95, 105))
    expect(requests('/api/v1/sites').at(-1)?.headers.authorization).toBe(
      `Bearer ${DEFAULT_PLAUSIBLE_API_KEY}`,
    )
  })

  it('filters sites by team and refuses what the Sites API cannot do', async () => {
    const team = await h.api<Rec[]>('GET', `${base()}/property`, {
      query: { parent_id: 'team_agency', limit: 100 },
    })
    const expected = emu.state.orderedSites().filter((s) => s.teamId === 'team_agency')
    expect(team.body.map((p) => p.id)).toEqual(expected.map((s) => s.domain))
    expect(team.body.every((p) => p.parent_id === 'team_agency')).toBe(true)
    expect(requests('/api/v1/sites')[0]?.query.team_id).toBe('team_agency')
    const search = await h.api<Rec>('GET', `${base()}/property`, { query: { query: 'site' } })
    expect(search.status).toBe(501)
    expect(search.body.message).toContain('Plausible (plausible)')
  })

  it('creates, reads, renames and removes a site', async () => {
    const created = await h.api<Rec>('POST', `${base()}/property`, {
      body: { name: 'new.example.com', timezone: 'Europe/Berlin' },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      id: 'new.example.com',
      name: 'new.example.com',
      timezone: 'Europe/Berlin',
    })
    expect(requests('/api/v1/sites')[0]?.body).toEqual({
      domain: 'new.example.com',
      timezone: 'Europe/Berlin',
    })
    const renamed = await h.api<Rec>('PUT', `${base()}/property/new.example.com`, {
      body: { name: 'renamed.example.com' },
    })
    expect(renamed.body).toMatchObject({ id: 'renamed.example.com' })
    expect((await h.api('GET', `${base()}/property/new.example.com`)).status).toBe(404)
    expect((await h.api<Rec>('GET', `${base()}/property/renamed.example.com`)).body).toMatchObject({
      timezone: 'Europe/Berlin',
    })
    const tz = await h.api<Rec>('PATCH', `${base()}/property/renamed.example.com`, {
      body: { timezone: 'UTC' },
    })
    expect(tz.status).toBe(400)
    expect((await h.api('DELETE', `${base()}/property/renamed.example.com`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/property/renamed.example.com`)).status).toBe(404)
    const taken = await h.api<Rec>('POST', `${base()}/property`, { body: { name: site } })
    expect(taken.status).toBe(400)
    expect(taken.body.message).toContain('already been taken')
  })

  it('records an event with our own id, and says when Plausible dropped it', async () => {
    const created = await h.api<Rec>('POST', `${base()}/event`, {
      body: {
        name: 'Signup',
        property_id: site,
        page_url: 'https://site0001.example.com/register',
        utm_source: 'mail',
        value: 20,
        currency: 'EUR',
        raw: { ip: '203.0.113.7' },
      },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      name: 'Signup',
      event_type: 'CUSTOM',
      property_id: site,
      utm_source: 'mail',
    })
    expect(String(created.body.id)).toMatch(/^[0-9a-f-]{36}$/)
    const sent = requests('/api/event')[0]
    expect(sent?.body).toEqual({
      domain: site,
      name: 'Signup',
      url: 'https://site0001.example.com/register?utm_source=mail',
      revenue: { currency: 'EUR', amount: 20 },
    })
    expect(sent?.headers['user-agent']).toMatch(/^Mozilla/)
    expect(sent?.headers['x-forwarded-for']).toBe('203.0.113.7')
    const dropped = await h.api<Rec>('POST', `${base()}/event`, {
      body: {
        name: 'x',
        property_id: 'unknown.example.com',
        page_url: 'https://unknown.example.com/',
        raw: { ip: '203.0.113.7' },
      },
    })
    expect(dropped.status).toBe(502)
    expect(dropped.body.message).toContain('dropped')
    const visitor = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'x', property_id: site, page_url: 'https://a.com/', visitor_id: 'v1' },
    })
    expect(visitor.status).toBe(400)
  })

  it("sends each visitor's IP and User-Agent, so Plausible counts visitors apart and keeps the events", async () => {
    const visitorsBefore = new Set(emu.state.visits.get(site)?.map((v) => v.visitorId)).size
    const send = (ip: string, ua?: string) =>
      h.api<Rec>('POST', `${base()}/event`, {
        body: {
          name: 'pageview',
          event_type: 'PAGE_VIEW',
          property_id: site,
          page_url: 'https://site0001.example.com/pricing',
          raw: { ip, ...(ua ? { user_agent: ua } : {}) },
        },
      })
    const ua = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 Safari/605.1.15'
    for (const res of [
      await send('198.51.100.1', ua),
      await send('198.51.100.2', ua),
      await send('198.51.100.1', ua),
    ])
      expect(res.status).toBe(200)
    const headers = requests('/api/event').map((r) => [r.headers['x-forwarded-for'], r.headers['user-agent']])
    expect(headers).toEqual([
      ['198.51.100.1', ua],
      ['198.51.100.2', ua],
      ['198.51.100.1', ua],
    ])
    expect(requests('/api/event').every((r) => (r.body as Rec).ip === undefined)).toBe(true)
    // Two addresses: two visitors, the third event joins the first.
    expect(new Set(emu.state.visits.get(site)?.map((v) => v.visitorId)).size).toBe(visitorsBefore + 2)
    // Without the visitor's IP Plausible would see Unigate's server and drop the event: refused here.
    const anonymous = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'x', property_id: site, page_url: 'https://site0001.example.com/' },
    })
    expect(anonymous.status).toBe(400)
    expect(anonymous.body.message).toContain('raw.ip')
    expect(requests('/api/event')).toHaveLength(3)
  })

  it('answers 501 for event reads and for sessions and visitors', async () => {
    for (const path of ['/event', '/event/abc', '/session', '/visitor']) {
      const res = await h.api<Rec>('GET', `${base()}${path}`)
      expect(res.status).toBe(501)
      expect(res.body.message).toContain('Plausible (plausible)')
    }
  })

  it('reports totals for a UTC window, ending one second before end_lt', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-20T00:00:00Z' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(1)
    const report = res.body[0] as Rec
    expect(report).toMatchObject({
      property_id: site,
      start_at: '2024-05-10T00:00:00.000Z',
      end_at: '2024-05-20T00:00:00.000Z',
    })
    const metrics = report.metrics as Rec[]
    expect(metrics.map((m) => m.type)).toEqual([
      'USERS',
      'SESSIONS',
      'PAGE_VIEWS',
      'PAGES_PER_SESSION',
      'BOUNCE_RATE',
      'AVERAGE_SESSION_DURATION',
    ])
    const bounce = metrics.find((m) => m.type === 'BOUNCE_RATE')?.value as number
    expect(bounce).toBeGreaterThan(0)
    expect(bounce).toBeLessThanOrEqual(1)
    expect(requests('/api/v2/query')[0]?.body).toMatchObject({
      site_id: site,
      metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'],
      date_range: ['2024-05-10T00:00:00+00:00', '2024-05-19T23:59:59+00:00'],
      pagination: { limit: 100, offset: 0 },
    })
  })

  it('reports zeros for a window without visits, one report as for any window, not an empty list', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: site, start_gte: '2019-01-01', end_lt: '2019-01-08' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(1)
    expect(res.body[0]).toMatchObject({
      start_at: '2019-01-01T00:00:00.000Z',
      end_at: '2019-01-08T00:00:00.000Z',
    })
    const metrics = (res.body[0] as Rec).metrics as Rec[]
    expect(metrics.map((m) => m.type)).toContain('USERS')
    for (const m of metrics) expect(m.value).toBe(0)
  })

  it('reports by day and by country, one report per row, paged at Plausible', async () => {
    const window = { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-13T00:00:00Z' }
    const total = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...window, type: 'PAGE_VIEWS' } })
    const views = ((total.body[0] as Rec).metrics as Rec[])[0]?.value
    const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, type: 'PAGE_VIEWS', dimension: 'DATE' },
    })
    expect(daily.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value)).toEqual([
      '2024-05-10',
      '2024-05-11',
      '2024-05-12',
    ])
    expect(daily.body.reduce((n, r) => n + Number((r.metrics as Rec[])[0]?.value), 0)).toBe(views)
    expect(requests('/api/v2/query')[1]?.body).toMatchObject({
      dimensions: ['time:day'],
      order_by: [['time:day', 'asc']],
    })
    const first = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'COUNTRY', limit: 2 },
    })
    const second = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'COUNTRY', limit: 2, offset: 2 },
    })
    const countries = [...first.body, ...second.body].map((r) => (r.metrics as Rec[])[0]?.dimension_value)
    expect(new Set(countries).size).toBe(4)
    expect(requests('/api/v2/query').at(-1)?.body).toMatchObject({ pagination: { limit: 2, offset: 2 } })
    // EVENT_NAME is every event by name (event:name), not only the configured goals (event:goal).
    const names = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'EVENT_NAME' },
    })
    expect(names.status).toBe(200)
    const byName = names.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value)
    expect(byName).toContain('pageview')
    expect(byName).toContain('Outbound Link: Click')
    expect(((names.body[0] as Rec).metrics as Rec[]).map((m) => m.type)).toEqual(['USERS', 'EVENTS'])
    expect(requests('/api/v2/query').at(-1)?.body).toMatchObject({
      dimensions: ['event:name'],
      metrics: ['visitors', 'events'],
    })
  })

  it("gives each time bucket the instants of the site's local day, cut to the window", async () => {
    const record = emu.state.sites.get(site)
    if (!record) throw new Error('seeded site missing')
    record.timezone = 'Europe/Berlin'
    try {
      const window = { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-12T00:00:00Z' }
      const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
        query: { ...window, type: 'SESSIONS', dimension: 'DATE' },
      })
      expect(daily.status).toBe(200)
      const rows = daily.body.map((r) => [(r.metrics as Rec[])[0]?.dimension_value, r.start_at, r.end_at])
      // Berlin is UTC+2 in May: its days start at 22:00 UTC the evening before.
      expect(rows).toEqual([
        ['2024-05-10', '2024-05-10T00:00:00.000Z', '2024-05-10T22:00:00.000Z'],
        ['2024-05-11', '2024-05-10T22:00:00.000Z', '2024-05-11T22:00:00.000Z'],
        ['2024-05-12', '2024-05-11T22:00:00.000Z', '2024-05-12T00:00:00.000Z'],
      ])
      expect(requests('/api/v1/sites/')[0]?.path).toBe(`/api/v1/sites/${site}`)
    } finally {
      record.timezone = 'Etc/UTC'
    }
  })

  it('pages a breakdown whose rows tie on the metric without repeating or skipping a row', async () => {
    // Two pages have 17 visitors each here; Plausible returns tied rows in any order unless told one.
    const window = { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-13T00:00:00Z' }
    const all = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, type: 'USERS', dimension: 'PAGE' },
    })
    const pages = all.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value)
    const walked = []
    for (let offset = 0; offset < pages.length; offset++) {
      const one = await h.api<Rec[]>('GET', `${base()}/report`, {
        query: { ...window, type: 'USERS', dimension: 'PAGE', limit: 1, offset },
      })
      walked.push(...one.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value))
    }
    expect(pages.length).toBeGreaterThan(2)
    expect(walked).toEqual(pages)
    expect(requests('/api/v2/query').at(-1)?.body).toMatchObject({
      order_by: [
        ['visitors', 'desc'],
        ['event:page', 'asc'],
      ],
    })
  })

  it('ends a week that starts mid-week, as Plausible labels it, at the next Monday', async () => {
    // 2024-05-08 is a Wednesday: Plausible labels that first week by the window's first date.
    const window = { property_id: site, start_gte: '2024-05-08T00:00:00Z', end_lt: '2024-05-20T00:00:00Z' }
    const weekly = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, type: 'SESSIONS', dimension: 'WEEK' },
    })
    expect(weekly.status).toBe(200)
    expect(weekly.body.map((r) => [(r.metrics as Rec[])[0]?.dimension_value, r.start_at, r.end_at])).toEqual([
      ['2024-05-08', '2024-05-08T00:00:00.000Z', '2024-05-13T00:00:00.000Z'],
      ['2024-05-13', '2024-05-13T00:00:00.000Z', '2024-05-20T00:00:00.000Z'],
    ])
  })

  it('asks only for metrics Plausible takes with the dimension, so default breakdowns work', async () => {
    const window = { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-13T00:00:00Z' }
    for (const dimension of ['DATE', 'SOURCE', 'COUNTRY', 'DEVICE_TYPE', 'PAGE']) {
      const res = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...window, dimension } })
      expect(res.status, dimension).toBe(200)
      expect(res.body.length, dimension).toBeGreaterThan(0)
      const types = new Set(res.body.flatMap((r) => (r.metrics as Rec[]).map((m) => m.type)))
      expect(types.has('PAGES_PER_SESSION'), dimension).toBe(false)
      expect(types.has('USERS'), dimension).toBe(true)
    }
    const country = requests('/api/v2/query').find(
      (r) => (r.body as Rec).dimensions?.toString() === 'visit:country',
    )
    expect((country?.body as Rec | undefined)?.metrics).toEqual([
      'visitors',
      'visits',
      'pageviews',
      'bounce_rate',
      'visit_duration',
    ])
    // Landing pages are session rows: page views (an event metric) cannot go with them.
    const landing = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'LANDING_PAGE' },
    })
    expect(landing.status).toBe(200)
    expect(requests('/api/v2/query').at(-1)?.body).toMatchObject({
      metrics: ['visitors', 'visits', 'bounce_rate', 'visit_duration'],
    })
    const perVisit = await h.api<Rec>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'COUNTRY', type: 'PAGES_PER_SESSION' },
    })
    expect(perVisit.status).toBe(501)
    expect(perVisit.body.message).toContain('views_per_visit')
  })

  it('answers 501 for what Plausible cannot report, and passes its own refusals on as 400', async () => {
    const year = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, dimension: 'YEAR' },
    })
    expect(year.status).toBe(501)
    const newUsers = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, type: 'NEW_USERS' },
    })
    expect(newUsers.status).toBe(501)
    expect(newUsers.body.message).toContain('NEW_USERS')
    const rate = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, type: 'CONVERSION_RATE' },
    })
    expect(rate.status).toBe(501)
    expect(rate.body.message).toContain('conversion_rate')
    const goal = await h.api<Rec>('GET', `${base()}/report`, {
      query: {
        property_id: site,
        type: 'USERS',
        raw: `filters=${JSON.stringify([['is', 'event:goal', ['Nope']]])}`,
      },
    })
    expect(goal.status).toBe(400)
    expect(goal.body.message).toContain('not configured')
  })

  it("sends a report's raw include in the query body and refuses any raw parameter the body cannot take", async () => {
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: site, raw: `include=${JSON.stringify({ imports: true })}` },
    })
    expect(res.status).toBe(200)
    expect(requests('/api/v2/query').at(-1)?.body).toMatchObject({ include: { imports: true } })
    emu.clearRequests()
    for (const [raw, message] of [
      [
        'limit=5',
        "raw: Plausible's query API takes no 'limit'; a report's raw parameters join its JSON body, which takes filters and include",
      ],
      ['include=imports', 'raw include: give a JSON object'],
      ['metrics=["events"]', "raw: 'metrics' is set by Unigate for Plausible; use type"],
      [
        'pagination={"limit":1}',
        "raw: 'pagination' is set by Unigate for Plausible; Unigate pages with limit and offset",
      ],
    ] as const) {
      const refused = await h.api<Rec>('GET', `${base()}/report`, { query: { property_id: site, raw } })
      expect(refused.status, raw).toBe(400)
      expect(String(refused.body.message)).toContain(message)
    }
    expect(requests('/api/v2/query')).toEqual([])
  })

  it('refuses a raw include or filters nested deeper than a request body may, naming it, before calling Plausible', async () => {
    emu.clearRequests()
    const include = `${'{"imports":'.repeat(70)}true${'}'.repeat(70)}`
    const filters = `${'['.repeat(70)}${']'.repeat(70)}`
    for (const [name, value] of [
      ['include', include],
      ['filters', filters],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/report`, {
        query: { property_id: site, raw: `${name}=${value}` },
      })
      expect(res.status, name).toBe(400)
      expect(res.body.message).toBe(
        `raw.${name}: nested more than 64 levels deep; a raw JSON value may nest up to 64`,
      )
    }
    expect(requests('/api/v2/query')).toEqual([])
  })

  it('retries a 429 then passes a persistent one on; 500 becomes 502; a rejected key 403', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '/api/v2/query' })
    expect((await h.api('GET', `${base()}/report`, { query: { property_id: site } })).status).toBe(200)
    expect(requests('/api/v2/query')).toHaveLength(2)
    emu.fault({ status: 429, times: 10, pathPattern: '/api/v2/query' })
    const limited = await h.api<Rec>('GET', `${base()}/report`, { query: { property_id: site } })
    expect(limited.status).toBe(429)
    emu.clearFaults()
    emu.fault({ status: 500, pathPattern: '/api/v1/sites' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(502)
    emu.fault({ status: 401, pathPattern: '/api/v1/sites' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(403)
  })

  it('connects to a Community Edition, which has no Sites API, and reports through it', async () => {
    const ce = await startPlausibleEmulator({ sites: 2, edition: 'community' })
    try {
      const res = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: {
          integration_type: 'plausible',
          auth: { api_key: DEFAULT_PLAUSIBLE_API_KEY, api_url: ce.url },
        },
      })
      expect(res.status).toBe(200)
      // The key was checked with the Stats API, which every edition has.
      expect(ce.requests().map((r) => `${r.method} ${r.path}`)).toContain('POST /api/v2/query')
      const report = await h.api('GET', `/analytics/${res.body.id}/report`, { query: { property_id: site } })
      expect(report.status).toBe(200)
      const sites = await h.api<Rec>('GET', `/analytics/${res.body.id}/property`)
      expect(sites.status).toBe(501)
      expect(sites.body.message).toContain('Community Edition')
    } finally {
      await ce.close()
    }
  })

  it('refuses a bad key when connecting, and tells a Stats key it cannot change sites', async () => {
    const statsKey = 'plausible_stats_only'
    const cloud = await startPlausibleEmulator({
      sites: 2,
      apiKeys: [DEFAULT_PLAUSIBLE_API_KEY, statsKey],
      provisionKeys: [DEFAULT_PLAUSIBLE_API_KEY],
    })
    try {
      const bad = await h.api<Rec>('POST', '/unified/connection', {
        body: { integration_type: 'plausible', auth: { api_key: 'nope', api_url: cloud.url } },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.message).toContain('Invalid API key')
      const res = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: { integration_type: 'plausible', auth: { api_key: statsKey, api_url: cloud.url } },
      })
      expect(res.status).toBe(200)
      const listed = await h.api<Rec[]>('GET', `/analytics/${res.body.id}/property`)
      expect(listed.status).toBe(200)
      expect(listed.body).toHaveLength(2)
      const create = await h.api<Rec>('POST', `/analytics/${res.body.id}/property`, {
        body: { name: 'blocked.example.com' },
      })
      expect(create.status).toBe(403)
      expect(create.body.message).toContain('sites:provision')
      expect(cloud.state.sites.has('blocked.example.com')).toBe(false)
    } finally {
      await cloud.close()
    }
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'plausible')
    expect(Object.keys(support).sort()).toEqual(['analytics_event', 'analytics_property', 'analytics_report'])
    const bodies: Record<string, Rec> = {
      analytics_property: { name: 'matrix.example.com' },
      analytics_event: {
        name: 'm',
        property_id: site,
        page_url: 'https://site0001.example.com/',
        raw: { ip: '192.0.2.44' },
      },
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => (object === 'analytics_report' ? { property_id: site } : undefined),
      body: ({ object, method }) => (method === 'create' ? (bodies[object] ?? {}) : { name: site }),
      id: ({ method }) => (method === 'remove' ? 'matrix.example.com' : site),
    })
  })
})

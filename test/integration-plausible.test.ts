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
    const dropped = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'x', property_id: 'unknown.example.com', page_url: 'https://unknown.example.com/' },
    })
    expect(dropped.status).toBe(502)
    expect(dropped.body.message).toContain('dropped')
    const visitor = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'x', property_id: site, page_url: 'https://a.com/', visitor_id: 'v1' },
    })
    expect(visitor.status).toBe(400)
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
    const goals = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'EVENT_NAME' },
    })
    expect(goals.status).toBe(200)
    const rate = ((goals.body[0] as Rec).metrics as Rec[]).find((m) => m.type === 'CONVERSION_RATE')
    expect(rate).toMatchObject({ dimension: 'EVENT_NAME', dimension_value: expect.any(String) })
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
    expect(rate.status).toBe(400)
    expect(rate.body.message).toContain('conversion_rate')
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

  it('connects a key whose plan lacks the Sites API, and then reports through it', async () => {
    const plain = await startPlausibleEmulator({ sites: 2, sitesApi: false })
    try {
      const res = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: {
          integration_type: 'plausible',
          auth: { api_key: DEFAULT_PLAUSIBLE_API_KEY, api_url: plain.url },
        },
      })
      expect(res.status).toBe(200)
      const report = await h.api('GET', `/analytics/${res.body.id}/report`, { query: { property_id: site } })
      expect(report.status).toBe(200)
      expect((await h.api('GET', `/analytics/${res.body.id}/property`)).status).toBe(502)
    } finally {
      await plain.close()
    }
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'plausible')
    expect(Object.keys(support).sort()).toEqual(['analytics_event', 'analytics_property', 'analytics_report'])
    const bodies: Record<string, Rec> = {
      analytics_property: { name: 'matrix.example.com' },
      analytics_event: { name: 'm', property_id: site, page_url: 'https://site0001.example.com/' },
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => (object === 'analytics_report' ? { property_id: site } : undefined),
      body: ({ object, method }) => (method === 'create' ? (bodies[object] ?? {}) : { name: site }),
      id: ({ method }) => (method === 'remove' ? 'matrix.example.com' : site),
    })
  })
})

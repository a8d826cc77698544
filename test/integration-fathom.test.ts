import { describe, expect, it } from 'vitest'
import {
  DEFAULT_FATHOM_API_KEY,
  type FathomEmulator,
  startFathomEmulator,
} from '../emulators/fathom/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>

describe('Fathom through Unigate', () => {
  let h: Harness
  let emu: FathomEmulator
  let conn: string
  let site: string
  const base = () => `/analytics/${conn}`
  const requests = (pathPart: string) => emu.requests().filter((r) => r.path.includes(pathPart))

  useEmulatorSuite({
    start: () => startFathomEmulator({ seed: 5, sites: 230, pageviews: 800 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'fathom',
        auth: { api_key: DEFAULT_FATHOM_API_KEY, api_url: `${emu.url}/v1` },
      })
      site = emu.state.orderedSites()[0]?.id as string
    },
  })

  it('pages sites with starting_after, remembering the cursor so the next page is one call', async () => {
    const ids = emu.state.orderedSites().map((s) => s.id)
    const page = async (offset: number, limit: number) =>
      (await h.api<Rec[]>('GET', `${base()}/property`, { query: { offset, limit } })).body.map((p) => p.id)
    expect(await page(0, 25)).toEqual(ids.slice(0, 25))
    expect(requests('/v1/sites').map((r) => r.query)).toEqual([{ limit: '25' }])
    emu.clearRequests()
    expect(await page(25, 25)).toEqual(ids.slice(25, 50))
    expect(requests('/v1/sites').map((r) => r.query)).toEqual([{ limit: '25', starting_after: ids[24] }])
    emu.clearRequests()
    expect(await page(210, 50)).toEqual(ids.slice(210, 230))
    // From the cursor at 50: one page of 100 to 150, one of 60 to 210, then the 20 rows left.
    expect(requests('/v1/sites').map((r) => r.query.limit)).toEqual(['100', '60', '50'])
    expect(requests('/v1/sites')[0]?.headers).toMatchObject({
      authorization: `Bearer ${DEFAULT_FATHOM_API_KEY}`,
      accept: 'application/json',
    })
  })

  it('creates, reads, updates and removes a site', async () => {
    const created = await h.api<Rec>('POST', `${base()}/property`, {
      body: { name: 'Acme', raw: { sharing: 'public' } },
      query: { fields: 'id,name,created_at,raw' },
    })
    expect(created.status).toBe(200)
    expect(String(created.body.id)).toMatch(/^[A-Z]{6,8}$/)
    expect(created.body).toMatchObject({ name: 'Acme', raw: { sharing: 'public' } })
    expect(String(created.body.created_at)).toMatch(/Z$/)
    const id = created.body.id as string
    const updated = await h.api<Rec>('PUT', `${base()}/property/${id}`, { body: { name: 'Acme 2' } })
    expect(updated.body).toMatchObject({ id, name: 'Acme 2' })
    expect(requests(`/v1/sites/${id}`).find((r) => r.method === 'POST')?.body).toEqual({ name: 'Acme 2' })
    expect((await h.api<Rec>('GET', `${base()}/property/${id}`)).body).toMatchObject({ name: 'Acme 2' })
    expect((await h.api('DELETE', `${base()}/property/${id}`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/property/${id}`)).status).toBe(404)
    const tz = await h.api<Rec>('POST', `${base()}/property`, { body: { name: 'x', timezone: 'UTC' } })
    expect(tz.status).toBe(400)
    const privateWithoutPassword = await h.api<Rec>('POST', `${base()}/property`, {
      body: { name: 'x', raw: { sharing: 'private' } },
    })
    expect(privateWithoutPassword.status).toBe(400)
    expect(privateWithoutPassword.body.message).toContain('share password')
  })

  it('reports pageview aggregates over a UTC window', async () => {
    const start = '2024-05-10T00:00:00Z'
    const end = '2024-05-20T00:00:00Z'
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: site, start_gte: start, end_lt: end },
    })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(1)
    const metrics = (res.body[0] as Rec).metrics as Rec[]
    const hits = (emu.state.hits.get(site) ?? []).filter(
      (x) => x.at >= Date.parse(start) && x.at < Date.parse(end),
    )
    expect(metrics.find((m) => m.type === 'PAGE_VIEWS')?.value).toBe(hits.length)
    expect(metrics.find((m) => m.type === 'SESSIONS')?.value).toBe(hits.filter((x) => x.visit).length)
    // Fathom's bounce_rate is already a 0-1 fraction, as unified BOUNCE_RATE is (emulators/fathom/README.md).
    const visits = hits.filter((x) => x.visit)
    expect(metrics.find((m) => m.type === 'BOUNCE_RATE')?.value).toBe(
      visits.filter((x) => x.bounce).length / visits.length,
    )
    expect(metrics.map((m) => m.type)).toEqual([
      'SESSIONS',
      'UNIQUE_PAGE_VIEWS',
      'PAGE_VIEWS',
      'AVERAGE_SESSION_DURATION',
      'BOUNCE_RATE',
    ])
    expect(requests('/v1/aggregations')[0]?.query).toMatchObject({
      entity: 'pageview',
      entity_id: site,
      timezone: 'UTC',
      date_from: '2024-05-10 00:00:00',
      date_to: '2024-05-19 23:59:59',
    })
  })

  it('reports by day in order and by page, cutting offset on our side', async () => {
    const window = { property_id: site, start_gte: '2024-05-10T00:00:00Z', end_lt: '2024-05-13T00:00:00Z' }
    const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'DATE', type: 'PAGE_VIEWS' },
    })
    expect(daily.body.map((r) => (r.metrics as Rec[])[0]?.dimension_value)).toEqual([
      '2024-05-10',
      '2024-05-11',
      '2024-05-12',
    ])
    expect(requests('/v1/aggregations')[0]?.query).toMatchObject({
      date_grouping: 'day',
      sort_by: 'timestamp:asc',
      aggregates: 'pageviews',
    })
    const all = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'PAGE', type: 'PAGE_VIEWS' },
    })
    const second = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'PAGE', type: 'PAGE_VIEWS', offset: 1, limit: 2 },
    })
    expect(second.body.map((r) => r.metrics)).toEqual(all.body.slice(1, 3).map((r) => r.metrics))
    expect(requests('/v1/aggregations').at(-1)?.query).toMatchObject({
      field_grouping: 'pathname',
      limit: '3',
    })
  })

  it('gives each daily row its own day as start_at/end_at, and refuses WEEK, which Fathom lacks', async () => {
    const window = { property_id: site, start_gte: '2024-05-10T12:00:00Z', end_lt: '2024-05-13T00:00:00Z' }
    const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'DATE', type: 'PAGE_VIEWS' },
    })
    expect(daily.body.map((r) => [r.start_at, r.end_at])).toEqual([
      ['2024-05-10T12:00:00.000Z', '2024-05-11T00:00:00.000Z'],
      ['2024-05-11T00:00:00.000Z', '2024-05-12T00:00:00.000Z'],
      ['2024-05-12T00:00:00.000Z', '2024-05-13T00:00:00.000Z'],
    ])
    emu.clearRequests()
    const week = await h.api<Rec>('GET', `${base()}/report`, { query: { ...window, dimension: 'WEEK' } })
    expect(week.status).toBe(501)
    expect(requests('/v1/aggregations')).toHaveLength(0)
  })

  it('reads an hourly series over 20 days in 7-day pieces, as Fathom allows', async () => {
    emu.clearRequests()
    const q = { property_id: site, start_gte: '2024-05-01T00:00:00Z', end_lt: '2024-05-21T00:00:00Z' }
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...q, dimension: 'HOUR', type: 'PAGE_VIEWS', limit: 1000 },
    })
    expect(res.status).toBe(200)
    expect(requests('/v1/aggregations').map((r) => [r.query.date_from, r.query.date_to])).toEqual([
      ['2024-05-01 00:00:00', '2024-05-07 23:59:59'],
      ['2024-05-08 00:00:00', '2024-05-14 23:59:59'],
      ['2024-05-15 00:00:00', '2024-05-20 23:59:59'],
    ])
    const hits = (emu.state.hits.get(site) ?? []).filter(
      (x) => x.at >= Date.parse(q.start_gte) && x.at < Date.parse(q.end_lt),
    )
    const total = res.body.reduce((n, r) => n + Number((r.metrics as Rec[])[0]?.value), 0)
    expect(total).toBe(hits.length)
    const first = res.body[0] as Rec
    expect(Date.parse(String(first.end_at)) - Date.parse(String(first.start_at))).toBe(3_600_000)
  })

  it('connects with a site-specific token, which cannot list sites, and lists its own sites one by one', async () => {
    const [mine, other] = emu.state.orderedSites().map((s) => s.id) as [string, string]
    emu.state.tokens.set('fathom_site_token', [`read:${mine}`])
    emu.clearRequests()
    const siteConn = await createConnection(h, {
      integration_type: 'fathom',
      auth: { api_key: 'fathom_site_token', api_url: `${emu.url}/v1` },
    })
    expect(requests('/v1/token')).toHaveLength(1)
    expect(requests('/v1/sites')).toHaveLength(0)
    const list = await h.api<Rec[]>('GET', `/analytics/${siteConn}/property`)
    expect(list.status).toBe(200)
    expect(list.body.map((p) => p.id)).toEqual([mine])
    const report = await h.api<Rec[]>('GET', `/analytics/${siteConn}/report`, {
      query: { property_id: mine },
    })
    expect(report.status).toBe(200)
    const refused = await h.api<Rec>('GET', `/analytics/${siteConn}/property/${other}`)
    expect(refused.status).toBe(404)
  })

  it('refuses a raw parameter Unigate sets on /aggregations instead of letting it silently win', async () => {
    emu.clearRequests()
    for (const [raw, why] of [
      ['timezone=America/New_York', 'Unigate reads the rows in UTC'],
      ['limit=1', 'Unigate pages with limit and offset'],
      ['date_from=2020-01-01 00:00:00', 'use start_gte and end_lt'],
      ['date_to=2020-01-01 00:00:00', 'use start_gte and end_lt'],
      ['entity_id=another-site', 'use property_id'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/report`, {
        query: { property_id: site, dimension: 'DATE', raw },
      })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message)).toBe(
        `raw: '${raw.split('=')[0]}' is set by Unigate for Fathom; ${why}`,
      )
    }
    expect(requests('/v1/aggregations')).toEqual([])
    // Any other raw parameter still reaches Fathom beside Unigate's own.
    const filters = JSON.stringify([{ property: 'pathname', operator: 'is', value: '/' }])
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: site, raw: new URLSearchParams({ filters }).toString() },
    })
    expect(res.status).toBe(200)
    expect(requests('/v1/aggregations').at(-1)?.query).toMatchObject({
      filters,
      timezone: 'UTC',
      entity_id: site,
    })
  })

  it('reports conversions of one event, value turned from cents', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: {
        property_id: site,
        type: 'CONVERSIONS,REVENUE',
        raw: 'entity_name=Purchase',
        start_gte: '2024-04-01',
      },
    })
    expect(res.status).toBe(200)
    const conversions = (emu.state.conversions.get(site) ?? []).filter((c) => c.name === 'Purchase')
    const metrics = (res.body[0] as Rec).metrics as Rec[]
    expect(metrics).toEqual([
      { type: 'CONVERSIONS', value: conversions.length },
      { type: 'REVENUE', value: conversions.reduce((n, c) => n + c.value, 0) / 100 },
    ])
    expect(requests('/v1/aggregations')[0]?.query).toMatchObject({
      entity: 'event',
      site_id: site,
      entity_name: 'Purchase',
    })
    const noName = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, type: 'CONVERSIONS' },
    })
    expect(noName.status).toBe(400)
    expect(noName.body.message).toContain('entity_name')
  })

  it('answers 501 for what Fathom cannot do, naming it', async () => {
    for (const [method, path] of [
      ['GET', '/event'],
      ['POST', '/event'],
      ['GET', '/session'],
      ['GET', '/visitor'],
    ] as const) {
      const res = await h.api<Rec>(method, `${base()}${path}`, method === 'POST' ? { body: {} } : {})
      expect(res.status).toBe(501)
      expect(res.body.message).toContain('Fathom (fathom)')
    }
    const users = await h.api<Rec>('GET', `${base()}/report`, { query: { property_id: site, type: 'USERS' } })
    expect(users.status).toBe(501)
    const city = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, dimension: 'CITY' },
    })
    expect(city.status).toBe(501)
    const search = await h.api<Rec>('GET', `${base()}/property`, { query: { query: 'x' } })
    expect(search.status).toBe(501)
  })

  it('retries a 429 on reads, then passes a persistent one on; a 500 becomes 502; a bad token 403', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '/v1/aggregations', headers: { 'retry-after': '1' } })
    expect((await h.api('GET', `${base()}/report`, { query: { property_id: site } })).status).toBe(200)
    expect(requests('/v1/aggregations')).toHaveLength(2)
    emu.fault({ status: 429, times: 10, pathPattern: '/v1/aggregations', headers: { 'retry-after': '30' } })
    const limited = await h.api<Rec>('GET', `${base()}/report`, { query: { property_id: site } })
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('30')
    emu.clearFaults()
    emu.fault({ status: 500, pathPattern: '/v1/sites' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(502)
    emu.fault({ status: 401, pathPattern: '/v1/sites' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(403)
  })

  it('answers 502 naming Fathom when it answers a shape the connector cannot read, never a 500', async () => {
    const weird: Array<{ path: string; fault: Record<string, unknown>; what: string }> = [
      // An object where the list of sites is expected, a bare string, JSON null.
      {
        path: 'property',
        fault: { body: { data: { id: 'x' }, has_more: false } },
        what: 'analytics_property',
      },
      { path: 'property', fault: { rawBody: '"maintenance"' }, what: 'analytics_property' },
      { path: 'property', fault: { rawBody: 'null' }, what: 'analytics_property' },
      { path: 'report', fault: { body: { data: 'rows' } }, what: 'analytics_report' },
    ]
    for (const { path, fault, what } of weird) {
      emu.fault({ status: 200, pathPattern: path === 'report' ? '/v1/aggregations' : '/v1/sites', ...fault })
      const query: Record<string, string> = path === 'report' ? { property_id: site } : {}
      const res = await h.api<Rec>('GET', `${base()}/${path}`, { query })
      const label = JSON.stringify(fault)
      expect(res.status, label).toBe(502)
      expect(res.body, label).toMatchObject({ statusCode: 502, error: 'Bad Gateway' })
      expect(String(res.body.message), label).toContain('Fathom')
      expect(String(res.body.message), label).toContain(`list ${what}`)
      expect(res.text, label).not.toMatch(/TypeError|at .*\.ts|node_modules/)
    }
    // The same guard answers a tool call, as a tool error rather than a broken session.
    emu.fault({ status: 200, pathPattern: '/v1/sites', rawBody: 'null' })
    const tool = await h.api<Rec>('POST', '/tools/list_analytics_properties/call', {
      query: { connection: conn },
      body: {},
    })
    expect(tool.status).toBe(502)
    expect(String(tool.body.message)).toContain('Fathom')
  })

  it('fails naming the cap when Fathom answers fewer aggregation rows than asked yet says there are more', async () => {
    // Fathom documents no cap on `limit` for /aggregations; should a server cut the rows short, has_more
    // says so, and the connector must not pass the short page off as the whole answer.
    const rows = [
      { pageviews: '3', pathname: '/a' },
      { pageviews: '2', pathname: '/b' },
    ]
    emu.fault({
      status: 200,
      pathPattern: '/v1/aggregations',
      body: { object: 'list', has_more: true, data: rows },
    })
    const res = await h.api<Rec>('GET', `${base()}/report`, {
      query: { property_id: site, dimension: 'PAGE', limit: 10 },
    })
    expect(res.status).toBe(502)
    expect(String(res.body.message)).toContain('Fathom')
    expect(String(res.body.message)).toContain('2 of the 10')
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'fathom')
    expect(Object.keys(support).sort()).toEqual(['analytics_property', 'analytics_report'])
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => (object === 'analytics_report' ? { property_id: site } : undefined),
      body: ({ method }) => ({ name: method === 'create' ? 'Matrix' : 'Site 1' }),
      // remove takes the site the walk's create made
      id: ({ method, created }) => (method === 'remove' ? created : site),
    })
  })
})

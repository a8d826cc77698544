import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { connected, type OwnAnswer, ownProvider } from './support/own-provider.js'

/**
 * A connection's creator may point it at an address of their own (`api_url`), whose answers stay under every
 * bound on size and values and still answer what was not asked: results for records the call did not name,
 * or more periods than the window holds. Each was work or memory for Unigate out of proportion to the call
 * (a security review, reproduced): they are the provider's fault, a 502 naming what was answered.
 */
describe("provider answers naming what the call did not ask for (a connection's own api_url)", () => {
  let h: Harness
  const provider = ownProvider()
  let url = ''

  beforeAll(async () => {
    h = await startHarness('sqlite')
    await provider.start()
    url = provider.url()
  })
  afterAll(async () => {
    await h?.close()
    await provider.close()
  })

  const connect = (integration_type: string, auth: Record<string, unknown>) =>
    connected(h, integration_type, auth)
  it("is a 502 when HubSpot's association batch answers a contact it did not ask for", async () => {
    // Followed, each unasked contact's pages were read in the next round: 70,000 such results per batch
    // made 2,000 calls and 700 MB of one request.
    let batches = 0
    let answer: unknown
    provider.answer = (req) => {
      if (req.url?.startsWith('/account-info/v3/details'))
        return [200, { portalId: 1, timeZone: 'UTC', uiDomain: 'x' }]
      if (req.url?.startsWith('/crm/v3/objects/contacts/1')) {
        return [
          200,
          {
            id: '1',
            properties: {},
            associations: { companies: { results: [], paging: { next: { after: 'x' } } } },
          },
        ]
      }
      if (req.url?.includes('/batch/read')) {
        batches++
        return [200, answer]
      }
      return [404, {}]
    }
    const id = await connect('hubspot', { token: 'pat-1', meta: { api_url: url } })
    const page = (from: string) => ({ from: { id: from }, to: [], paging: { next: { after: 'a' } } })
    answer = { results: [page('1'), ...Array.from({ length: 1000 }, (_, i) => page(String(i + 2)))] }
    const refused = await h.api<{ message: string }>('GET', `/crm/${id}/contact/1`, {
      query: { fields: 'id,company_ids' },
    })
    expect(refused.status, refused.text).toBe(502)
    expect(refused.body.message).toContain(
      'HubSpot answered the companies of contact 2, which the batch did not ask for (or twice); not read',
    )
    expect(batches).toBe(1)
    // The contact asked about, its companies in two pages: read.
    batches = 0
    provider.answer = (
      (base: OwnAnswer): OwnAnswer =>
      (req, body) => {
        if (!req.url?.includes('/batch/read')) return base(req, body)
        batches++
        return batches === 1
          ? [
              200,
              {
                results: [{ from: { id: '1' }, to: [{ toObjectId: 7 }], paging: { next: { after: 'p2' } } }],
              },
            ]
          : [200, { results: [{ from: { id: '1' }, to: [{ toObjectId: 8 }] }] }]
      }
    )(provider.answer)
    const read = await h.api<{ company_ids: string[] }>('GET', `/crm/${id}/contact/1`, {
      query: { fields: 'id,company_ids' },
    })
    expect(read.status, read.text).toBe(200)
    expect(read.body.company_ids).toEqual(['7', '8'])
  })

  it('is a 502 when a Matomo period series answers more periods than the window holds', async () => {
    // Each period became five or six metrics repeating its key: 300,000 keys of 90 characters (30 MB) made a
    // 305 MB answer.
    let answer = '[]'
    provider.answer = (req, body) =>
      body.includes('API.getMatomoVersion') || req.url?.includes('API.getMatomoVersion')
        ? [200, { value: '5.0.0' }]
        : [200, answer]
    const id = await connect('matomo', { token_auth: 'a'.repeat(32), meta: { api_url: url } })
    const ask = () =>
      h.api<{ message: string } & unknown[]>('GET', `/analytics/${id}/report`, {
        query: { property_id: '1', dimension: 'DATE', start_gte: '2026-01-01', end_lt: '2026-01-08' },
      })
    const series = (keys: string[]) =>
      JSON.stringify([Object.fromEntries(keys.map((k) => [k, []])), {}, { idsite: 1, timezone: 'UTC' }])
    answer = series(Array.from({ length: 60_000 }, (_, i) => `k${i}`))
    const many = await ask()
    expect(many.status, many.text.slice(0, 300)).toBe(502)
    expect(many.body.message).toContain('Matomo answered 60000 periods for a window of 7; not read')
    answer = series([`2026-01-01${'x'.repeat(90)}`])
    const long = await ask()
    expect(long.status, long.text.slice(0, 300)).toBe(502)
    expect(long.body.message).toContain('Matomo answered a series period labelled')
    // The week's seven days: read, a day's visits each.
    answer = series(Array.from({ length: 7 }, (_, i) => `2026-01-0${i + 1}`))
    const read = await ask()
    expect(read.status, read.text.slice(0, 300)).toBe(200)
  })

  it('is a 502 when a Mixpanel series answers more periods than the window holds', async () => {
    // Each entry became a metric: 990,000 entries for a week held the event loop for 2 s, then overflowed
    // the stack where they were pushed as arguments.
    let answer: unknown
    provider.answer = (req) =>
      req.url?.startsWith('/api/app/me')
        ? [200, { status: 'ok', results: { projects: { '1': { name: 'p', timezone: 'UTC' } } } }]
        : [200, answer]
    const id = await connect('mixpanel', {
      username: 'u',
      secret: 's',
      project_id: '1',
      project_token: 't',
      meta: { api_url: url },
    })
    const ask = () =>
      h.api<{ message: string } & unknown[]>('GET', `/analytics/${id}/report`, {
        query: { query: 'Signup', dimension: 'DATE', start_gte: '2026-01-01', end_lt: '2026-01-08' },
      })
    answer = { data: { series: Array(100_000).fill('2026-01-01'), values: {} } }
    const many = await ask()
    expect(many.status, many.text.slice(0, 300)).toBe(502)
    expect(many.body.message).toContain(
      'Mixpanel answered a series of 100000 periods for a window of 7 days; not read',
    )
    const days = Array.from({ length: 7 }, (_, i) => `2026-01-0${i + 1}`)
    answer = { data: { series: days, values: { Signup: Object.fromEntries(days.map((d) => [d, 2])) } } }
    const read = await ask()
    expect(read.status, read.text.slice(0, 300)).toBe(200)
  })

  it("keeps a Gusto payroll's list of employees out of every payslip's raw, and refuses a page past `per`", async () => {
    let detail: unknown
    provider.answer = (req) => {
      const u = new URL(req.url ?? '/', 'http://x')
      if (u.pathname === '/v1/token_info')
        return [200, { scope: 'x', resource: { type: 'Company', uuid: 'c1' } }]
      if (u.pathname === '/v1/companies/c1') return [200, { uuid: 'c1', name: 'A', join_date: '2026-11-01' }]
      if (u.pathname === '/v1/companies/c1/payrolls') {
        const payroll = {
          payroll_uuid: 'p1',
          uuid: 'p1',
          check_date: '2026-11-10',
          processed_date: '2026-11-10',
        }
        return [200, [{ ...payroll, processed: true }]]
      }
      if (u.pathname === '/v1/companies/c1/payrolls/p1') {
        return [
          200,
          u.searchParams.get('page') === '1' ? detail : { payroll_uuid: 'p1', employee_compensations: [] },
        ]
      }
      return [404, {}]
    }
    const id = await connect('gusto', { access_token: 'tok', meta: { api_url: url } })
    const employees = (n: number) => Array.from({ length: n }, (_, i) => ({ employee_uuid: `e${i}` }))
    detail = { payroll_uuid: 'p1', processed: true, employee_compensations: employees(3) }
    const read = await h.api<{ raw: { payroll: Record<string, unknown>; employee_compensation: unknown } }[]>(
      'GET',
      `/hris/${id}/payslip`,
      { query: { limit: '10', fields: 'id,raw' } },
    )
    expect(read.status, read.text.slice(0, 300)).toBe(200)
    expect(read.body).toHaveLength(3)
    // Each payslip's raw: the payroll's own fields and that employee's compensation, not every employee's.
    expect(read.body.map((p) => p.raw.employee_compensation)).toEqual(employees(3))
    for (const p of read.body) expect(p.raw.payroll.employee_compensations).toBeUndefined()
    // 10,000 employees on a page asked for 100: with the list in every payslip, a 259 MB answer.
    detail = { payroll_uuid: 'p1', processed: true, employee_compensations: employees(10_000) }
    const refused = await h.api<{ message: string }>('GET', `/hris/${id}/payslip`, {
      query: { limit: '1000', fields: 'id,raw' },
    })
    expect(refused.status, refused.text.slice(0, 300)).toBe(502)
    expect(refused.body.message).toContain(
      'Gusto answered 10000 employees on a page of payroll p1 asked for 100',
    )
  })

  it('is a 502 when a text copied into many records is longer than any such text is', async () => {
    // A Greenhouse source's name on each of 500 applications, and a Matomo visit's city on each of its 1,000
    // actions: 800,000 and 400,000 characters made answers of 400 MB.
    const apps = Array.from({ length: 500 }, (_, i) => ({ id: i + 1, source_id: 1 }))
    let sourceName = ''
    provider.answer = (req) => {
      if (req.url?.startsWith('/token'))
        return [200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }]
      if (req.url?.startsWith('/v3/applications')) return [200, apps]
      if (req.url?.startsWith('/v3/sources')) return [200, [{ id: 1, name: sourceName }]]
      return [200, []]
    }
    const greenhouse = await connect('greenhouse', {
      client_id: 'c',
      client_secret: 's',
      meta: { api_url: `${url}/v3`, token_url: `${url}/token` },
    })
    const applications = () =>
      h.api<{ message: string } & { source?: string }[]>('GET', `/ats/${greenhouse}/application`, {
        query: { limit: '500', fields: 'id,source' },
      })
    sourceName = 'n'.repeat(800_000)
    const refused = await applications()
    expect(refused.status, refused.text.slice(0, 300)).toBe(502)
    expect(refused.body.message).toContain(
      'Greenhouse answered a name at /sources of 800000 characters, copied into every record that shares it',
    )
    sourceName = 'Referral'
    const read = await applications()
    expect(read.status, read.text.slice(0, 300)).toBe(200)
    expect(read.body.every((a) => a.source === 'Referral')).toBe(true)

    let city = ''
    let visitorId = 'abc'
    provider.answer = (req) => {
      const method = new URL(req.url ?? '/', 'http://x').searchParams.get('method') ?? ''
      if (method === 'API.getMatomoVersion') return [200, { value: '5.0.0' }]
      if (method === 'SitesManager.getSiteFromId') return [200, { idsite: '1', timezone: 'UTC' }]
      if (method !== 'Live.getLastVisitsDetails')
        return [200, { result: 'error', message: `unknown ${method}` }]
      const visit = { idSite: '1', idVisit: '1', visitorId, firstActionTimestamp: 1767225600 }
      const actions = Array(1000).fill({ timestamp: 1767225600 })
      return [
        200,
        [
          {
            ...visit,
            lastActionTimestamp: 1767225600,
            serverTimestamp: 1767225600,
            city,
            actionDetails: actions,
          },
        ],
      ]
    }
    const matomo = await connect('matomo', { token_auth: 'b'.repeat(32), meta: { api_url: url } })
    const events = () =>
      h.api<{ message: string } & { city?: string }[]>('GET', `/analytics/${matomo}/event`, {
        query: {
          property_id: '1',
          limit: '1000',
          start_gte: '2025-12-31T00:00:00Z',
          end_lt: '2026-01-02T00:00:00Z',
        },
      })
    city = 'c'.repeat(400_000)
    const long = await events()
    expect(long.status, long.text.slice(0, 300)).toBe(502)
    expect(long.body.message).toContain("Matomo answered a visit's city of 400000 characters")
    // The visit's ids are on each action too (visitor_id): 50,000 characters made a 50 MB answer of 80 KB.
    city = 'Lyon'
    visitorId = 'v'.repeat(50_000)
    const longId = await events()
    expect(longId.status, longId.text.slice(0, 300)).toBe(502)
    expect(longId.body.message).toContain("Matomo answered a visit's visitorId of 50000 characters")
    visitorId = 'abc'
    const short = await events()
    expect(short.status, short.text.slice(0, 300)).toBe(200)
    expect(short.body).toHaveLength(1000)
    expect(short.body[0]?.city).toBe('Lyon')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'
import { storeKinds } from './support/stores.js'

type Connection = Record<string, unknown> & { id: string; auth?: Record<string, unknown> }

describe.each(storeKinds())('connections from held credentials on %s', (store) => {
  let h: Harness
  let emulator: PosthogEmulator
  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness(store)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })

  it('creates a connection after a cheap verification call, with the fields the SDK requires', async () => {
    emulator.clearRequests()
    const res = await h.api<Connection>('POST', '/unified/connection', {
      body: {
        integration_type: 'posthog',
        external_xref: 'customer-42',
        auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
        environment: 'Production',
        categories: ['analytics'],
      },
    })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cn_na_/),
      integration_type: 'posthog',
      integration_name: 'PostHog',
      categories: ['analytics'],
      permissions: expect.arrayContaining([
        'analytics_event_read',
        'analytics_visitor_write',
        'analytics_report_read',
      ]),
      external_xref: 'customer-42',
      environment: 'Production',
      workspace_id: h.workspaceId,
    })
    expect(res.body.auth).toEqual({ api_url: emulator.url })
    expect(res.text).not.toContain(DEFAULT_PERSONAL_API_KEY)
    const verification = emulator.requests()
    expect(verification.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/users/@me/'])
    expect(verification[0]?.headers.authorization).toBe(`Bearer ${DEFAULT_PERSONAL_API_KEY}`)
  })

  it('refuses credentials the provider rejects with a clear 400, storing nothing', async () => {
    const before = (await h.api<Connection[]>('GET', '/unified/connection')).body.length
    const res = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: { token: 'phx_wrong', api_url: emulator.url } },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({
      message: expect.stringMatching(/PostHog rejected the credentials \(401/),
    })
    expect(res.text).not.toContain('phx_wrong')
    expect((await h.api<Connection[]>('GET', '/unified/connection')).body.length).toBe(before)
  })

  it('refuses an unknown integration, missing credentials and a bad region, naming them', async () => {
    const unknown = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'nope', auth: {} },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ message: expect.stringContaining("unknown integration 'nope'") })
    const missing = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: {} },
    })
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ message: expect.stringContaining('auth.token') })
    const region = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: { token: 'x', meta: { region: 'mars' } } },
    })
    expect(region.status).toBe(400)
    expect(region.body).toMatchObject({ message: expect.stringContaining('us, eu') })
    const wrongType = await h.api('POST', '/unified/connection', {
      body: { integration_type: 'posthog', categories: 'analytics' },
    })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body).toMatchObject({ message: expect.stringContaining('categories') })
  })

  it('lists with the SDK parameters: external_xref, categories, limit/offset, sort/order, updated_gte', async () => {
    const a = await connectPosthog(h, emulator, { external_xref: 'list-a' })
    const b = await connectPosthog(h, emulator, { external_xref: 'list-b' })
    const byXref = await h.api<Connection[]>('GET', '/unified/connection', {
      query: { external_xref: 'list-b' },
    })
    expect(byXref.body.map((c) => c.id)).toEqual([b])
    const all = (
      await h.api<Connection[]>('GET', '/unified/connection', { query: { categories: ['analytics'] } })
    ).body
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining([a, b]))
    const newestFirst = await h.api<Connection[]>('GET', '/unified/connection', {
      query: { order: 'desc', limit: 1 },
    })
    expect(newestFirst.body.map((c) => c.id)).toEqual([b])
    const second = await h.api<Connection[]>('GET', '/unified/connection', {
      query: { order: 'desc', limit: 1, offset: 1 },
    })
    expect(second.body.map((c) => c.id)).toEqual([a])
    const future = await h.api<Connection[]>('GET', '/unified/connection', {
      query: { updated_gte: '2999-01-01' },
    })
    expect(future.body).toEqual([])
    const badDate = await h.api('GET', '/unified/connection', { query: { updated_gte: 'soon' } })
    expect(badDate.status).toBe(400)
    // accounting is a Unified.to category this server has no models for.
    const badCategory = await h.api<{ message: string }>('GET', '/unified/connection', {
      query: { categories: 'accounting' },
    })
    expect(badCategory.status).toBe(400)
    expect(badCategory.body.message).toBe(
      'categories: accounting not served here; use analytics, hris, ats, crm',
    )
    const hris = await h.api('GET', '/unified/connection', { query: { categories: 'hris' } })
    expect(hris.status).toBe(200)
    expect(hris.body).toEqual([])
  })

  it('pages, filters and sorts in the database, unsealing only the connections it returns', async () => {
    const other = await h.otherWorkspace()
    const list = async (query: Record<string, string | number> = {}) => {
      const res = await h.api<Connection[]>('GET', '/unified/connection', { key: other.apiKey, query })
      expect(res.status, JSON.stringify(query)).toBe(200)
      return res.body.map((c) => c.id)
    }
    for (const xref of ['p-1', 'p-2', 'p-3']) {
      const res = await h.api<Connection>('POST', '/unified/connection', {
        key: other.apiKey,
        body: {
          integration_type: 'posthog',
          external_xref: xref,
          auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
        },
      })
      expect(res.status).toBe(200)
    }
    const all = await list()
    expect(all).toHaveLength(3)
    expect(await list({ limit: 2 })).toEqual(all.slice(0, 2))
    expect(await list({ limit: 2, offset: 2 })).toEqual(all.slice(2))
    expect(await list({ order: 'desc' })).toEqual([...all].reverse())
    expect(await list({ offset: 3 })).toEqual([])
    expect((await list({ sort: 'integration_type' })).sort()).toEqual([...all].sort())

    // Rows written past the API: one of another category (first by date), one whose sealed credentials
    // are corrupt (last by date). The category filter skips the first inside the database, paging included.
    const [row] = await h.services.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', all[0] as string)
      .execute()
    if (!row) throw new Error('the first connection is not in the database')
    await h.services.db
      .insertInto('connections')
      .values([
        {
          ...row,
          id: 'cn_na_hris',
          categories: '["hris"]',
          external_xref: null,
          created_at: '2000-01-01T00:00:00.000Z',
        },
        {
          ...row,
          id: 'cn_na_corrupt',
          auth_sealed: 'not-sealed',
          external_xref: null,
          created_at: '2999-01-01T00:00:00.000Z',
        },
      ])
      .execute()
    expect(await list({ categories: 'analytics', limit: 3 })).toEqual(all)
    expect(await list({ categories: 'analytics', limit: 2, offset: 1 })).toEqual(all.slice(1, 3))
    expect(await list({ limit: 4 })).toEqual(['cn_na_hris', ...all])
    expect(await list({ external_xref: 'p-2' })).toHaveLength(1)
    // Only the page is unsealed: the corrupt row outside it does not break the listing.
    expect(await list({ limit: 2, offset: 2 })).toEqual(all.slice(1, 3))
  })

  it('gets, updates (PUT) and patches a connection; changed credentials are verified again', async () => {
    const id = await connectPosthog(h, emulator, { external_xref: 'before' })
    const got = await h.api<Connection>('GET', `/unified/connection/${id}`)
    expect(got.body).toMatchObject({ id, external_xref: 'before' })
    // The SDK sends the whole connection on PATCH, without secrets (it never had them).
    const patched = await h.api<Connection>('PATCH', `/unified/connection/${id}`, {
      body: { ...got.body, external_xref: 'after', permissions: ['analytics_event_read'] },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ external_xref: 'after', permissions: ['analytics_event_read'] })
    const badToken = await h.api('PUT', `/unified/connection/${id}`, { body: { auth: { token: 'phx_bad' } } })
    expect(badToken.status).toBe(400)
    const reads = await h.api('GET', `/analytics/${id}/event`, { query: { limit: 1 } })
    expect(reads.status).toBe(200)
    const writes = await h.api('POST', `/analytics/${id}/visitor`, { body: { email: 'x@example.com' } })
    expect(writes.status).toBe(403)
    expect(writes.body).toMatchObject({ message: expect.stringContaining('analytics_visitor_write') })
  })

  it('removes a connection: 200 with an empty body, then 404 everywhere', async () => {
    const id = await connectPosthog(h, emulator)
    const removed = await h.api('DELETE', `/unified/connection/${id}`)
    expect(removed.status).toBe(200)
    expect(removed.text).toBe('')
    expect((await h.api('GET', `/unified/connection/${id}`)).status).toBe(404)
    expect((await h.api('GET', `/analytics/${id}/event`)).status).toBe(404)
    expect((await h.api('DELETE', `/unified/connection/${id}`)).status).toBe(404)
  })

  it("treats another workspace's connection as not found, never forbidden", async () => {
    const id = await connectPosthog(h, emulator)
    const other = await h.otherWorkspace()
    for (const [method, path] of [
      ['GET', `/unified/connection/${id}`],
      ['PATCH', `/unified/connection/${id}`],
      ['DELETE', `/unified/connection/${id}`],
      ['GET', `/analytics/${id}/event`],
      ['GET', `/analytics/${id}/property/1`],
      ['GET', `/passthrough/${id}/api/users/@me/`],
    ] as const) {
      const res = await h.api(method, path, {
        key: other.apiKey,
        ...(method === 'PATCH' ? { body: {} } : {}),
      })
      expect(res.status, `${method} ${path}`).toBe(404)
    }
    expect((await h.api<Connection[]>('GET', '/unified/connection', { key: other.apiKey })).body).toEqual([])
    expect((await h.api('GET', `/unified/connection/${id}`)).status).toBe(200)
  })

  it('keeps credentials sealed at rest and out of every response and log line', async () => {
    const id = await connectPosthog(h, emulator)
    const row = await h.services.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(DEFAULT_PERSONAL_API_KEY)
    await h.api('GET', `/analytics/${id}/event`, { query: { limit: 2, fields: 'id,raw' } })
    await h.api('GET', `/passthrough/${id}/api/users/@me/`)
    await h.api('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: { token: 'phx_leak_me', api_url: emulator.url } },
    })
    expect(h.logs()).toContain('request completed')
    expect(h.logs()).not.toContain(DEFAULT_PERSONAL_API_KEY)
    expect(h.logs()).not.toContain('phx_leak_me')
    expect(h.logs()).not.toContain(h.apiKey)
  })
})

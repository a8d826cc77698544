import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { createServices } from '../src/services.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'
import { storeKinds } from './support/stores.js'

type Call = Record<string, unknown>
const MARKER = 'sekrit-marker-7f3a'

describe.each(storeKinds())('inbound API calls are recorded on %s', (store) => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness(store)
    conn = await connectPosthog(h, emulator, { external_xref: 'customer-42' })
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })
  beforeEach(() => emulator.clearFaults())

  const inbound = async (query: Record<string, string> = {}) => {
    const res = await h.api<Call[]>('GET', '/unified/apicall', { query: { type: 'inbound', ...query } })
    expect(res.status).toBe(200)
    return res.body
  }

  it('records a unified-object call with the SDK’s fields, and no query string', async () => {
    const res = await h.api('GET', `/analytics/${conn}/event`, {
      query: { limit: 2, fields: 'id', query: MARKER },
      headers: { 'user-agent': 'inbound-test/1.0' },
    })
    expect(res.status).toBe(200)
    const calls = await inbound({ connection_id: conn })
    const call = calls.find((c) => c.name === 'listAnalyticsEvents')
    expect(call).toMatchObject({
      type: 'inbound',
      name: 'listAnalyticsEvents',
      method: 'GET',
      path: 'GET /analytics/{connection_id}/event',
      status: '200',
      connection_id: conn,
      integration_type: 'posthog',
      external_xref: 'customer-42',
      environment: 'Production',
      workspace_id: h.workspaceId,
      is_billable: true,
      user_agent: 'inbound-test/1.0',
      ip_address: '127.0.0.1',
      size: Buffer.byteLength(res.text),
      unified_response_time: expect.any(Number),
    })
    expect(call).not.toHaveProperty('error')
    // The provider's own time is not measured for unified objects (several calls may make one answer).
    expect(call).not.toHaveProperty('endapi_response_time')
  })

  it('records a failing call with its error, found by error=true', async () => {
    emulator.fault({ status: 503, times: 3, pathPattern: '/query/' })
    const failing = await h.api<{ message: string }>('GET', `/analytics/${conn}/event`, {
      query: { limit: 1 },
    })
    expect(failing.status).toBe(502)
    const missing = await h.api('GET', '/analytics/cn_na_doesnotexist/event')
    expect(missing.status).toBe(404)
    const errors = await inbound({ error: 'true' })
    expect(errors.find((c) => c.status === '502')).toMatchObject({
      connection_id: conn,
      integration_type: 'posthog',
      error: failing.body.message,
      is_billable: false,
    })
    expect(errors.find((c) => c.status === '404')).toMatchObject({
      connection_id: 'cn_na_doesnotexist',
      integration_type: 'unknown',
      error: 'connection cn_na_doesnotexist not found',
      is_billable: false,
    })
    expect(errors.every((c) => Number(c.status) >= 400 && typeof c.error === 'string')).toBe(true)
    const ok = await inbound({ error: 'false' })
    expect(ok.length).toBeGreaterThan(0)
    expect(ok.every((c) => Number(c.status) < 400 && !('error' in c))).toBe(true)
  })

  it('records passthrough with the SDK’s operationIds and the provider’s time, never a body or query', async () => {
    const get = await h.api('GET', `/passthrough/${conn}/${encodeURIComponent(`api/users/@me/?x=${MARKER}`)}`)
    expect(get.status).toBe(200)
    const post = await h.api('POST', `/passthrough/${conn}/api/projects/1/nowhere/`, {
      body: { note: MARKER },
    })
    expect(post.status).toBeGreaterThanOrEqual(400)
    const calls = await inbound({ connection_id: conn })
    expect(calls.find((c) => c.name === 'listPassthroughs')).toMatchObject({
      method: 'GET',
      path: 'GET /passthrough/{connection_id}/{path}',
      status: '200',
      integration_type: 'posthog',
      is_billable: true,
      ip_address: '127.0.0.1',
      endapi_response_time: expect.any(Number),
      // The relayed answer's size, as the provider declared it.
      size: Buffer.byteLength(get.text),
    })
    // The provider's error body is not ours to keep: only its status is.
    expect(calls.find((c) => c.name === 'createPassthroughJson')).toMatchObject({
      method: 'POST',
      status: String(post.status),
      error: `the provider answered ${post.status}`,
      is_billable: false,
    })
  })

  it('keeps no secret, logs only workspace-key calls on the logged routes', async () => {
    expect((await h.api('GET', `/analytics/${conn}/event`, { key: null })).status).toBe(401)
    expect((await h.api('GET', `/analytics/${conn}/event`, { key: 'forged' })).status).toBe(401)
    await h.api('GET', '/unified/connection')
    const calls = await inbound({ limit: '1000' })
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.every((c) => c.status !== '401')).toBe(true)
    expect(calls.every((c) => /^\w+ \/(analytics|passthrough)\//.test(String(c.path)))).toBe(true)
    const text = JSON.stringify(calls)
    for (const secret of [h.apiKey, DEFAULT_PERSONAL_API_KEY, MARKER, 'Bearer', '?']) {
      expect(text).not.toContain(secret)
    }
  })

  it('filters by the SDK’s other filters too', async () => {
    expect((await inbound({ integration_type: 'posthog' })).length).toBeGreaterThan(0)
    expect(await inbound({ integration_type: 'mixpanel' })).toEqual([])
    expect((await inbound({ external_xref: 'customer-42' })).length).toBeGreaterThan(0)
    const billable = await inbound({ is_billable: 'true' })
    expect(billable.every((c) => c.is_billable === true)).toBe(true)
    const other = await h.otherWorkspace()
    const foreign = await h.api<Call[]>('GET', '/unified/apicall', {
      key: other.apiKey,
      query: { type: 'inbound' },
    })
    expect(foreign.body).toEqual([])
  })
})

describe('inbound API-call logging', () => {
  it('is flushed when the server closes, not written per request', async () => {
    const emulator = await startPosthog()
    const h = await startHarness('sqlite')
    try {
      const conn = await connectPosthog(h, emulator)
      expect((await h.api('GET', `/analytics/${conn}/event`, { query: { limit: 1 } })).status).toBe(200)
      const written = await h.services.db
        .selectFrom('api_calls')
        .select('id')
        .where('type', '=', 'inbound')
        .execute()
      // Still queued in memory: the request did not wait for a write.
      expect(written).toEqual([])
    } finally {
      await h.close()
      await emulator.close()
    }
    const reopened = await createServices(h.services.config, { background: false })
    try {
      const calls = await reopened.apiCalls.list({
        workspaceId: h.workspaceId,
        type: 'inbound',
        sort: 'created_at',
        order: 'desc',
        limit: 10,
        offset: 0,
      })
      expect(calls).toEqual([expect.objectContaining({ name: 'listAnalyticsEvents', status: '200' })])
    } finally {
      await reopened.close()
    }
  })

  it('is switched off by logInboundCalls (UNIGATE_LOG_INBOUND_CALLS=false)', async () => {
    const emulator = await startPosthog()
    const h = await startHarness('sqlite', { logInboundCalls: false })
    try {
      const conn = await connectPosthog(h, emulator)
      expect((await h.api('GET', `/analytics/${conn}/event`, { query: { limit: 1 } })).status).toBe(200)
      expect((await h.api('GET', `/passthrough/${conn}/api/users/@me/`)).status).toBe(200)
      const calls = await h.api('GET', '/unified/apicall', { query: { type: 'inbound' } })
      expect(calls.body).toEqual([])
    } finally {
      await h.close()
      await emulator.close()
    }
  })
})

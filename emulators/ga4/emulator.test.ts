import { request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Ga4Emulator, startGa4Emulator } from './index.js'

const S = 'https://www.googleapis.com/auth/'
let emu: Ga4Emulator
let readToken: string
let editToken: string

async function call(method: string, path: string, opts: { token?: string | null; body?: unknown } = {}) {
  const token = opts.token === undefined ? readToken : opts.token
  const res = await request(`${emu.url}${path}`, {
    method: method as 'GET',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined }
}

beforeAll(async () => {
  emu = await startGa4Emulator({ accounts: 2, propertiesPerAccount: 3 })
  readToken = emu.authority.issueTokens({ scopes: [`${S}analytics.readonly`] }).access_token
  editToken = emu.authority.issueTokens({ scopes: [`${S}analytics.edit`] }).access_token
})
afterAll(() => emu.close())
beforeEach(() => emu.state.quotas.reset())

describe('auth', () => {
  it('answers 401 UNAUTHENTICATED without, or with an unknown, token', async () => {
    const none = await call('GET', '/v1beta/accountSummaries', { token: null })
    expect(none.status).toBe(401)
    expect(none.body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' })
    expect(none.body.error.message).toMatch(/missing required authentication credential/)
    const bad = await call('GET', '/v1beta/accountSummaries', { token: 'ya29.nope' })
    expect(bad.status).toBe(401)
    expect(bad.headers['www-authenticate']).toContain('invalid_token')
  })

  it('answers 403 for a token without the needed scope', async () => {
    const res = await call('POST', '/v1beta/properties', {
      body: { parent: 'accounts/100', displayName: 'x', timeZone: 'UTC' },
    })
    expect(res.status).toBe(403)
    expect(res.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'Request had insufficient authentication scopes.',
    })
  })
})

describe('scopes per API', () => {
  it('refuses the full analytics scope at the Admin API, which declares only readonly and edit, but not at the Data API', async () => {
    const full = emu.authority.issueTokens({ scopes: [`${S}analytics`] }).access_token
    const admin = await call('GET', '/v1beta/accountSummaries', { token: full })
    expect(admin.status).toBe(403)
    const data = await call('POST', '/v1beta/properties/1000:runReport', {
      token: full,
      body: { dateRanges: [{ startDate: '7daysAgo', endDate: 'today' }], metrics: [{ name: 'sessions' }] },
    })
    expect(data.status).toBe(200)
  })
})

describe('Admin API', () => {
  it('requires a filter and pages with nextPageToken', async () => {
    expect((await call('GET', '/v1beta/properties')).status).toBe(400)
    const first = await call('GET', '/v1beta/properties?filter=ancestor:accounts/100&pageSize=2')
    expect(first.body.properties).toHaveLength(2)
    expect(first.body.properties[0]).toMatchObject({ name: 'properties/1000', parent: 'accounts/100' })
    const second = await call(
      'GET',
      `/v1beta/properties?filter=ancestor:accounts/100&pageSize=2&pageToken=${first.body.nextPageToken}`,
    )
    expect(second.body.properties).toHaveLength(1)
    expect(second.body.nextPageToken).toBeUndefined()
    const mismatch = await call(
      'GET',
      `/v1beta/properties?filter=parent:accounts/101&pageToken=${first.body.nextPageToken}`,
    )
    expect(mismatch.status).toBe(400)
  })

  it('requires updateMask in snake_case, and soft-deletes', async () => {
    const created = await call('POST', '/v1beta/properties', {
      token: editToken,
      body: { parent: 'accounts/100', displayName: 'New', timeZone: 'Europe/Paris', currencyCode: 'EUR' },
    })
    expect(created.status).toBe(200)
    const path = `/v1beta/${created.body.name}`
    expect((await call('PATCH', path, { token: editToken, body: { displayName: 'X' } })).status).toBe(400)
    expect(
      (
        await call('PATCH', `${path}?updateMask=displayName`, {
          token: editToken,
          body: { displayName: 'X' },
        })
      ).status,
    ).toBe(400)
    const patched = await call('PATCH', `${path}?updateMask=display_name`, {
      token: editToken,
      body: { displayName: 'X' },
    })
    expect(patched.body).toMatchObject({ displayName: 'X', timeZone: 'Europe/Paris' })
    const deleted = await call('DELETE', path, { token: editToken })
    expect(deleted.body.deleteTime).toBeDefined()
    expect((await call('DELETE', path, { token: editToken })).status).toBe(404)
  })

  it('refuses unknown fields and invalid values like Google', async () => {
    const res = await call('POST', '/v1beta/properties', {
      token: editToken,
      body: { parent: 'accounts/100', displayName: 'x', timeZone: 'Mars/Olympus' },
    })
    expect(res.status).toBe(400)
    const unknown = await call('POST', '/v1beta/properties', {
      token: editToken,
      body: { parent: 'accounts/100', displayName: 'x', timeZone: 'UTC', display_name: 'y' },
    })
    expect(unknown.body.error.message).toMatch(/Unknown name "display_name"/)
  })

  it('binds only system parameters and the request message’s own fields from the query', async () => {
    const property = emu.seed.properties[0]!.name
    expect((await call('GET', `/v1beta/${property}?quotaUser=t1&prettyPrint=false`)).status).toBe(200)
    const unbound = await call('GET', `/v1beta/${property}?updateMask=display_name`)
    expect(unbound.status).toBe(400)
    expect(unbound.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "updateMask": Cannot bind query parameter. Field 'updateMask' could not be found in request message.`,
    )
    const patch = await call('PATCH', `/v1beta/${property}?updateMask=display_name&quotaUser=t1`, {
      token: editToken,
      body: { displayName: 'Bound' },
    })
    expect(patch.status).toBe(200)
    // A field binds by its proto name too: `page_size` is `pageSize`.
    const byProtoName = await call('GET', '/v1beta/properties?filter=parent:accounts/100&page_size=1')
    expect(byProtoName.status).toBe(200)
    expect(byProtoName.body.properties).toHaveLength(1)
    expect(byProtoName.body.nextPageToken).toEqual(expect.any(String))
  })
})

describe('Data API runReport', () => {
  const report = (body: unknown, token?: string) =>
    call('POST', '/v1beta/properties/1000:runReport', { body, token })

  it('returns string values, headers, rowCount and metadata', async () => {
    const res = await report({
      dateRanges: [{ startDate: '2024-05-01', endDate: '2024-05-07' }],
      dimensions: [{ name: 'date' }],
      metrics: [{ name: 'activeUsers' }, { name: 'bounceRate' }],
      orderBys: [{ dimension: { dimensionName: 'date' } }],
      limit: '3',
      returnPropertyQuota: true,
    })
    expect(res.status).toBe(200)
    expect(res.body.rowCount).toBe(7)
    expect(res.body.rows).toHaveLength(3)
    expect(res.body.rows[0].dimensionValues[0].value).toBe('20240501')
    expect(typeof res.body.rows[0].metricValues[0].value).toBe('string')
    expect(res.body.metricHeaders).toEqual([
      { name: 'activeUsers', type: 'TYPE_INTEGER' },
      { name: 'bounceRate', type: 'TYPE_FLOAT' },
    ])
    expect(res.body.metadata.timeZone).toBeDefined()
    expect(res.body.propertyQuota.tokensPerHour.consumed).toBeGreaterThan(0)
  })

  it('leaves rows and rowCount out of an empty report', async () => {
    const res = await report({
      dateRanges: [{ startDate: '2099-01-01', endDate: '2099-01-02' }],
      metrics: [{ name: 'sessions' }],
    })
    expect(res.status).toBe(200)
    expect(res.body.rows).toBeUndefined()
    expect(res.body.rowCount).toBeUndefined()
  })

  it('leaves out rows whose metrics are all 0 unless keepEmptyRows is true', async () => {
    // "If false or unspecified, each row with all metrics equal to 0 will not be returned. If true, these
    // rows will be returned if they are not separately removed by a filter." (RunReportRequest.keep_empty_rows)
    const base = {
      dateRanges: [{ startDate: '2024-05-01', endDate: '2024-05-07' }],
      dimensions: [{ name: 'eventName' }],
      metrics: [{ name: 'transactions' }],
    }
    const rowsOf = (body: {
      rows?: { dimensionValues: { value: string }[]; metricValues: { value: string }[] }[]
    }) =>
      Object.fromEntries(
        (body.rows ?? []).map((r) => [r.dimensionValues[0]?.value, r.metricValues[0]?.value]),
      )
    const kept = await report({ ...base, keepEmptyRows: true })
    expect(rowsOf(kept.body).page_view).toBe('0')
    expect(Number(rowsOf(kept.body).purchase)).toBeGreaterThan(0)
    const plain = await report(base)
    expect(rowsOf(plain.body)).toEqual({ purchase: rowsOf(kept.body).purchase })
    expect(plain.body.rowCount).toBe(1)
    expect(kept.body.rowCount).toBeGreaterThan(1)
  })

  it('validates names, ranges and the token scope', async () => {
    const bad = await report({
      dateRanges: [{ startDate: '7daysAgo', endDate: 'today' }],
      metrics: [{ name: 'views' }],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/views is not a valid metric/)
    const range = await report({
      dateRanges: [{ startDate: '2024-05-02', endDate: '2024-05-01' }],
      metrics: [{ name: 'sessions' }],
    })
    expect(range.status).toBe(400)
    const editOnly = await report(
      { dateRanges: [{ startDate: 'today', endDate: 'today' }], metrics: [{ name: 'sessions' }] },
      editToken,
    )
    expect(editOnly.status).toBe(403)
    const unknownProperty = await call('POST', '/v1beta/properties/9:runReport', {
      body: { dateRanges: [{ startDate: 'today', endDate: 'today' }], metrics: [{ name: 'sessions' }] },
    })
    expect(unknownProperty.status).toBe(403)
  })

  it('refuses a filter that is not an object, and filters grouped rows by a metric, even one not requested', async () => {
    const base = {
      dateRanges: [{ startDate: '2024-05-01', endDate: '2024-05-07' }],
      dimensions: [{ name: 'date' }],
      metrics: [{ name: 'activeUsers' }],
    }
    const text = await report({ ...base, dimensionFilter: 'country' })
    expect(text.status).toBe(400)
    expect(text.body.error.message).toBe(
      `Invalid value at 'dimension_filter' (type.googleapis.com/google.analytics.data.v1beta.FilterExpression), "country"`,
    )
    const all = await report(base)
    const sessions = await report({ ...base, metrics: [{ name: 'sessions' }] })
    const cut = Number(sessions.body.rows[3].metricValues[0].value)
    const filtered = await report({
      ...base,
      metricFilter: {
        filter: {
          fieldName: 'sessions',
          betweenFilter: { fromValue: { int64Value: String(cut) }, toValue: { doubleValue: 1e9 } },
        },
      },
    })
    expect(filtered.status).toBe(200)
    const kept = new Set(
      sessions.body.rows
        .filter((r: { metricValues: { value: string }[] }) => Number(r.metricValues[0]?.value) >= cut)
        .map((r: { dimensionValues: { value: string }[] }) => r.dimensionValues[0]?.value),
    )
    expect(filtered.body.rowCount).toBe(kept.size)
    expect(filtered.body.rowCount).toBeLessThan(all.body.rowCount)
    const unknown = await report({
      ...base,
      metricFilter: { filter: { fieldName: 'views', numericFilter: {} } },
    })
    expect(unknown.body.error.message).toBe('Field views is not a valid metric for metric_filter.')
  })

  it('answers 429 RESOURCE_EXHAUSTED once the hourly tokens are spent', async () => {
    emu.state.quotas.setLimits({ tokensPerHour: 1 })
    try {
      const body = { dateRanges: [{ startDate: 'today', endDate: 'today' }], metrics: [{ name: 'sessions' }] }
      expect((await report(body)).status).toBe(200)
      const refused = await report(body)
      expect(refused.status).toBe(429)
      expect(refused.body.error.status).toBe('RESOURCE_EXHAUSTED')
    } finally {
      emu.state.quotas.setLimits({ tokensPerHour: 40_000 })
    }
  })
})

describe('Measurement Protocol', () => {
  it('answers 204 to everything and records only valid events of a known stream', async () => {
    const stream = emu.seed.streams[0]!
    const before = emu.collected().length
    const send = (secret: string, body: unknown) =>
      request(`${emu.url}/mp/collect?measurement_id=${stream.measurementId}&api_secret=${secret}`, {
        method: 'POST',
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }))
    const good = { client_id: 'c1', events: [{ name: 'sign_up', params: { method: 'email' } }] }
    expect(await send(stream.apiSecret, good)).toEqual({ status: 204, text: '' })
    expect(await send('wrong', good)).toEqual({ status: 204, text: '' })
    expect(await send(stream.apiSecret, { client_id: 'c1', events: [{ name: 'session_start' }] })).toEqual({
      status: 204,
      text: '',
    })
    const collected = emu.collected().slice(before)
    expect(collected).toHaveLength(1)
    expect(collected[0]).toMatchObject({ clientId: 'c1', name: 'sign_up', params: { method: 'email' } })
  })

  it('keeps long page_location, page_referrer and page_title, takes screen_view, caps other values at 100', async () => {
    const debug = async (params: Record<string, string>, name = 'page_view') => {
      const res = await request(`${emu.url}/debug/mp/collect?measurement_id=G-X&api_secret=s`, {
        method: 'POST',
        body: JSON.stringify({ client_id: 'c', events: [{ name, params }] }),
      })
      return ((await res.body.json()) as { validationMessages: { fieldPath: string }[] }).validationMessages
    }
    const long = (n: number) => 'x'.repeat(n)
    expect(
      await debug({ page_location: long(1000), page_referrer: long(420), page_title: long(300) }),
    ).toEqual([])
    expect((await debug({ page_location: long(1001) })).map((m) => m.fieldPath)).toEqual([
      'events[0].params.page_location',
    ])
    expect((await debug({ page_title: long(301), other: long(101) })).map((m) => m.fieldPath)).toEqual([
      'events[0].params.page_title',
      'events[0].params.other',
    ])
    expect(await debug({ screen_name: 'Home' }, 'screen_view')).toEqual([])
  })

  it('explains problems on the debug endpoint', async () => {
    const res = await request(`${emu.url}/debug/mp/collect?measurement_id=G-X&api_secret=s`, {
      method: 'POST',
      body: JSON.stringify({ events: [{ name: '_bad' }] }),
    })
    const body = (await res.body.json()) as { validationMessages: { fieldPath: string }[] }
    expect(body.validationMessages.map((m) => m.fieldPath)).toEqual(['client_id', 'events[0].name'])
  })
})

import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { type Ga4Emulator, startGa4Emulator } from '../emulators/ga4/index.js'
import type { Harness } from './support/harness.js'
import { connected, supportMatrixOf, useEmulatorSuite } from './support/integration-suite.js'

type Rec = Record<string, unknown>
type Metric = { type: string; value: number; dimension?: string; dimension_value?: string }
type Report = Rec & { metrics: Metric[]; start_at: string; end_at: string }

const S = 'https://www.googleapis.com/auth/'
const SCOPES = [`${S}analytics.readonly`, `${S}analytics.edit`]

describe('Google Analytics 4 through Unigate', () => {
  let h: Harness
  let emu: Ga4Emulator
  let conn: string
  let token: string
  const base = () => `/analytics/${conn}`
  const sent = (path: string) => emu.requests().filter((r) => r.path.startsWith(path))

  async function connect(auth: Rec) {
    return h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'googleanalytics', auth: { api_url: emu.url, ...auth } },
    })
  }

  /** The emulator answering directly, to compare Unigate's answer with. */
  async function direct(path: string, body: unknown) {
    const res = await request(`${emu.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return (await res.body.json()) as Rec
  }

  useEmulatorSuite({
    start: () => startGa4Emulator({ seed: 3, accounts: 3, propertiesPerAccount: 4 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      token = emu.authority.issueTokens({ scopes: SCOPES }).access_token
      const stream = emu.seed.streams[0]!
      conn = await connected(
        connect({ access_token: token, measurement_id: stream.measurementId, api_secret: stream.apiSecret }),
      )
    },
    reset: (emulator) => emulator.state.quotas.reset(),
  })

  describe('connections', () => {
    it('verifies the bearer token with one account summary, and refuses a token Google rejects', async () => {
      const ok = await connect({ access_token: token })
      expect(ok.status).toBe(200)
      const [verify] = sent('/v1beta/accountSummaries')
      expect(verify).toMatchObject({
        query: { pageSize: '1' },
        headers: { authorization: `Bearer ${token}` },
      })
      const bad = await connect({ access_token: 'ya29.unknown' })
      expect(bad.status).toBe(400)
      expect(JSON.stringify(bad.body)).toMatch(
        /rejected the credentials .*invalid authentication credentials/,
      )
    })

    it('accepts tokens issued by the emulated token endpoint for an authorization code', async () => {
      const code = emu.authority.issueCode({ scopes: SCOPES })
      const res = await request(`${emu.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'http://127.0.0.1/oauth/callback',
          client_id: 'unigate-test.apps.googleusercontent.com',
          client_secret: 'GOCSPX-unigate-test-secret',
        }).toString(),
      })
      const tokens = (await res.body.json()) as { access_token: string; refresh_token: string }
      const created = await connect({
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
      })
      expect(created.status).toBe(200)
      expect((await h.api('GET', `/analytics/${created.body.id}/property`)).status).toBe(200)
    })

    it('answers 403 with a re-authorize hint once the access token expired', async () => {
      const shortLived = emu.authority.issueTokens({ scopes: SCOPES }).access_token
      const created = await connect({ access_token: shortLived })
      emu.authority.advance(3600)
      const res = await h.api<Rec>('GET', `/analytics/${created.body.id}/property`)
      expect(res.status).toBe(403)
      expect(String(res.body.message)).toMatch(/re-authorize/)
      // Everyone else's tokens are minted on the same clock: give them a fresh hour again.
      token = emu.authority.issueTokens({ scopes: SCOPES }).access_token
      await h.api('PATCH', `/unified/connection/${conn}`, { body: { auth: { access_token: token } } })
    })
  })

  describe('support matrix', () => {
    it('claims exactly what works, and every claimed operation answers', async () => {
      const support = await supportMatrixOf(h, 'googleanalytics')
      expect(Object.keys(support).sort()).toEqual([
        'analytics_event',
        'analytics_property',
        'analytics_report',
      ])
      expect(support.analytics_event?.methods).toEqual({ list: false, get: false, create: true })
      expect(support.analytics_report?.methods).toEqual({ list: true })
      const property = emu.seed.properties[0]!.name.split('/')[1]
      const calls: Record<string, Record<string, () => Promise<{ status: number }>>> = {
        analytics_property: {
          list: () => h.api('GET', `${base()}/property`),
          get: () => h.api('GET', `${base()}/property/${property}`),
          create: () =>
            h.api('POST', `${base()}/property`, { body: { name: 'M', timezone: 'UTC', parent_id: '100' } }),
          update: () => h.api('PUT', `${base()}/property/${property}`, { body: { name: 'Renamed' } }),
          patch: () => h.api('PATCH', `${base()}/property/${property}`, { body: { currency: 'EUR' } }),
          remove: async () => {
            const made = await h.api<Rec>('POST', `${base()}/property`, {
              body: { name: 'Gone', timezone: 'UTC', parent_id: '100' },
            })
            return h.api('DELETE', `${base()}/property/${made.body.id}`)
          },
        },
        analytics_event: {
          create: () => h.api('POST', `${base()}/event`, { body: { name: 'sign_up', visitor_id: 'c.1' } }),
        },
        analytics_report: {
          list: () => h.api('GET', `${base()}/report`, { query: { property_id: property as string } }),
        },
      }
      for (const [object, { methods }] of Object.entries(support)) {
        for (const [method, claimed] of Object.entries(methods)) {
          const call = calls[object]?.[method]
          if (!claimed) {
            expect(call, `${object}.${method} is not claimed but has a call`).toBeUndefined()
            continue
          }
          expect(call, `${object}.${method} is claimed but untested`).toBeDefined()
          expect((await call!()).status, `${object}.${method}`).toBe(200)
        }
      }
    })

    it('answers 501 naming the integration for what GA4 cannot do', async () => {
      for (const path of ['event', 'session', 'visitor', 'event/x']) {
        const res = await h.api<Rec>('GET', `${base()}/${path}`)
        expect(res.status, path).toBe(501)
        expect(String(res.body.message)).toContain('googleanalytics')
      }
      const sorted = await h.api<Rec>('GET', `${base()}/property`, { query: { sort: 'name' } })
      expect(sorted.status).toBe(501)
    })
  })

  describe('properties', () => {
    it('lists every account’s properties, paged across accounts, with field selection', async () => {
      // GA4's order: account by account, each account's live properties as its listing gives them.
      const live = emu.state.admin.properties.filter((p) => !p.deleteTime)
      const all = emu.seed.accounts.flatMap((a) =>
        live.filter((p) => p.account === a.name).map((p) => p.name.split('/')[1]),
      )
      const page = async (offset: number) =>
        (await h.api<Rec[]>('GET', `${base()}/property`, { query: { offset, limit: 5, fields: 'id,name' } }))
          .body
      const rows = [...(await page(0)), ...(await page(5)), ...(await page(10)), ...(await page(15))]
      expect(rows.map((r) => r.id)).toEqual(all)
      expect(Object.keys(rows[0]!).sort()).toEqual(['id', 'name'])
      // Only the accounts the window 5..9 falls into are listed, by ancestor.
      const accountOf = (id: string | undefined) => live.find((p) => p.name === `properties/${id}`)?.account
      const spanned = [...new Set(all.slice(5, 10).map(accountOf))].map((a) => `ancestor:${a}`)
      emu.clearRequests()
      await page(5)
      expect(spanned.length).toBeGreaterThan(1)
      expect(sent('/v1beta/properties').map((r) => r.query.filter)).toEqual(spanned)
    })

    it('filters by parent_id and maps every field, raw included', async () => {
      const res = await h.api<Rec[]>('GET', `${base()}/property`, {
        query: { parent_id: '101', fields: 'id,parent_id,timezone,currency,raw' },
      })
      expect(res.status).toBe(200)
      expect(res.body).toHaveLength(4)
      const seeded = emu.seed.properties.find((p) => p.name === `properties/${res.body[0]?.id}`)!
      expect(res.body[0]).toEqual({
        id: seeded.name.split('/')[1],
        parent_id: '101',
        timezone: seeded.timeZone,
        currency: seeded.currencyCode,
        raw: { ...seeded, __id: seeded.name },
      })
      expect(sent('/v1beta/properties')[0]?.query).toMatchObject({
        filter: 'parent:accounts/101',
        pageSize: '200',
      })
    })

    it('creates, updates with an updateMask, reads and trashes a property', async () => {
      const created = await h.api<Rec>('POST', `${base()}/property`, {
        body: {
          name: 'Launch site',
          timezone: 'Europe/Paris',
          currency: 'EUR',
          industry: 'TRAVEL',
          parent_id: '100',
        },
      })
      expect(created.status).toBe(200)
      expect(created.body).toMatchObject({
        name: 'Launch site',
        timezone: 'Europe/Paris',
        currency: 'EUR',
        parent_id: '100',
      })
      const id = created.body.id as string
      const patched = await h.api<Rec>('PATCH', `${base()}/property/${id}`, { body: { name: 'Renamed' } })
      expect(patched.body).toMatchObject({ name: 'Renamed', timezone: 'Europe/Paris' })
      const patch = sent('/v1beta/properties/').find((r) => r.method === 'PATCH')
      expect(patch).toMatchObject({ query: { updateMask: 'display_name' }, body: { displayName: 'Renamed' } })
      const moved = await h.api<Rec>('PUT', `${base()}/property/${id}`, {
        body: { name: 'X', parent_id: '101' },
      })
      expect(moved.status).toBe(400)
      expect((await h.api('DELETE', `${base()}/property/${id}`)).status).toBe(200)
      const gone = await h.api('GET', `${base()}/property/${id}`)
      expect(gone.status).toBe(404)
    })

    it("sends a property write's raw parameters to the patch itself, not to the read that checks the account", async () => {
      const id = emu.seed.properties[2]!.name.split('/')[1] as string
      emu.clearRequests()
      const patched = await h.api<Rec>('PATCH', `${base()}/property/${id}`, {
        query: { raw: 'quotaUser=tenant-7' },
        body: { name: 'Quota user', parent_id: emu.seed.properties[2]!.parent.split('/')[1] },
      })
      expect(patched.status, JSON.stringify(patched.body)).toBe(200)
      const [read, patch] = sent(`/v1beta/properties/${id}`)
      expect(read?.method).toBe('GET')
      expect(read?.query).toEqual({})
      expect(patch).toMatchObject({
        method: 'PATCH',
        query: { quotaUser: 'tenant-7', updateMask: 'display_name' },
      })
      // GA4 binds no other query parameter to a patch: it refuses one, and so does Unigate its own.
      const unknown = await h.api<Rec>('PATCH', `${base()}/property/${id}`, {
        query: { raw: 'colour=red' },
        body: { name: 'Colour' },
      })
      expect(unknown.status).toBe(400)
      expect(String(unknown.body.message)).toContain(`Unknown name "colour": Cannot bind query parameter`)
      const mask = await h.api<Rec>('PATCH', `${base()}/property/${id}`, {
        query: { raw: 'updateMask=time_zone' },
        body: { name: 'Mask' },
      })
      expect(mask.status).toBe(400)
      expect(String(mask.body.message)).toMatch(/^raw: 'updateMask' is set by Unigate for .*; /)
    })

    it("sends a property create's raw parameters to the create", async () => {
      emu.clearRequests()
      const created = await h.api<Rec>('POST', `${base()}/property`, {
        query: { raw: 'quotaUser=tenant-7' },
        body: { name: 'Quota create', timezone: 'UTC', parent_id: '100' },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const [create] = sent('/v1beta/properties').filter((r) => r.method === 'POST')
      expect(create?.query).toEqual({ quotaUser: 'tenant-7' })
      const unknown = await h.api<Rec>('POST', `${base()}/property`, {
        query: { raw: 'colour=red' },
        body: { name: 'Colour', timezone: 'UTC', parent_id: '100' },
      })
      expect(unknown.status).toBe(400)
      expect(String(unknown.body.message)).toContain(`Unknown name "colour": Cannot bind query parameter`)
      expect((await h.api('DELETE', `${base()}/property/${created.body.id}`)).status).toBe(200)
    })

    it('says what is missing to create, and passes GA4’s own refusals on as 400', async () => {
      const missing = await h.api<Rec>('POST', `${base()}/property`, { body: { name: 'x' } })
      expect(missing.status).toBe(400)
      expect(String(missing.body.message)).toMatch(/parent_id.*timezone/)
      const badZone = await h.api<Rec>('POST', `${base()}/property`, {
        body: { name: 'x', timezone: 'Mars/Base', parent_id: '100' },
      })
      expect(badZone.status).toBe(400)
      expect(String(badZone.body.message)).toContain('not a valid time zone')
    })

    it('refuses a raw paging parameter or update mask under its proto name as under its JSON name', async () => {
      // Google reads `page_token` as `pageToken` (google/field-names.ts): either would replace Unigate's own.
      emu.clearRequests()
      for (const [raw, readAs] of [
        ['pageToken=x', ''],
        ['page_token=x', " \\(Google Analytics 4 reads it as 'pageToken'\\)"],
        ['pageSize=5', ''],
        ['page_size=5', " \\(Google Analytics 4 reads it as 'pageSize'\\)"],
      ] as const) {
        const res = await h.api<Rec>('GET', `${base()}/property`, { query: { parent_id: '100', raw } })
        expect(res.status, raw).toBe(400)
        expect(String(res.body.message)).toMatch(
          new RegExp(
            `^raw: '${raw.split('=')[0]}' is set by Unigate for .*${readAs}; Unigate pages with limit and offset$`,
          ),
        )
      }
      const id = emu.seed.properties[0]!.name.split('/')[1]
      const mask = await h.api<Rec>('PATCH', `${base()}/property/${id}`, {
        query: { raw: 'update_mask=time_zone' },
        body: { name: 'Mask' },
      })
      expect(mask.status).toBe(400)
      expect(String(mask.body.message)).toMatch(
        /^raw: 'update_mask' is set by Unigate for .* reads it as 'updateMask'/,
      )
      expect(emu.requests()).toEqual([])
    })

    it('reads page N of a large account from the remembered page token, not from the first page', async () => {
      const big = await startGa4Emulator({
        seed: 9,
        accounts: 1,
        propertiesPerAccount: 450,
        authority: emu.authority,
      })
      try {
        const c = await h.api<{ id: string }>('POST', '/unified/connection', {
          body: { integration_type: 'googleanalytics', auth: { access_token: token, api_url: big.url } },
        })
        const list = (offset: number) =>
          h.api<Rec[]>('GET', `/analytics/${c.body.id}/property`, {
            query: { parent_id: '100', offset, limit: 10 },
          })
        const first = await list(400)
        expect(first.body.map((r) => r.id)).toEqual(
          big.seed.properties.slice(400, 410).map((p) => p.name.split('/')[1]),
        )
        expect(big.requests().filter((r) => r.path === '/v1beta/properties')).toHaveLength(3)
        big.clearRequests()
        const again = await list(410)
        expect(again.body).toHaveLength(10)
        const calls = big.requests().filter((r) => r.path === '/v1beta/properties')
        expect(calls).toHaveLength(1)
        expect(calls[0]?.query.pageToken).toBeDefined()
      } finally {
        await big.close()
      }
    })
  })

  describe('reports', () => {
    const property = () => emu.seed.properties[1]!
    const id = () => property().name.split('/')[1] as string

    it('reports one record per day in the property’s time zone, with GA4’s numbers', async () => {
      const res = await h.api<Report[]>('GET', `${base()}/report`, {
        query: {
          property_id: id(),
          start_gte: '2024-05-01',
          end_lt: '2024-05-08',
          dimension: 'DATE',
          type: 'USERS,BOUNCE_RATE',
        },
      })
      expect(res.status).toBe(200)
      expect(res.body).toHaveLength(7)
      const [call] = sent(`/v1beta/${property().name}:runReport`)
      expect(call?.body).toEqual({
        dateRanges: [{ startDate: '2024-05-01', endDate: '2024-05-07' }],
        dimensions: [{ name: 'date' }],
        metrics: [{ name: 'activeUsers' }, { name: 'bounceRate' }],
        keepEmptyRows: true,
        limit: '100',
        offset: '0',
        orderBys: [{ dimension: { dimensionName: 'date', orderType: 'ALPHANUMERIC' }, desc: false }],
      })
      const truth = await direct(`/v1beta/${property().name}:runReport`, call?.body)
      const rows = truth.rows as { metricValues: { value: string }[] }[]
      const first = res.body[0]!
      expect(first.metrics).toEqual([
        {
          type: 'USERS',
          value: Number(rows[0]?.metricValues[0]?.value),
          dimension: 'DATE',
          dimension_value: '2024-05-01',
        },
        {
          type: 'BOUNCE_RATE',
          value: Number(rows[0]?.metricValues[1]?.value),
          dimension: 'DATE',
          dimension_value: '2024-05-01',
        },
      ])
      const tz = property().timeZone
      const expectedStart = new Date(
        new Date('2024-05-01T00:00:00Z').getTime() - offsetOf(tz, '2024-05-01T12:00:00Z'),
      )
      expect(first.start_at).toBe(expectedStart.toISOString())
      expect(first.raw).toBeUndefined()
    })

    it('pages rows with GA4’s limit/offset and carries the quota object in raw when asked', async () => {
      const q = {
        property_id: id(),
        start_gte: '2024-05-01',
        end_lt: '2024-05-08',
        dimension: 'DATE',
        limit: 3,
      }
      const second = await h.api<Report[]>('GET', `${base()}/report`, {
        query: { ...q, offset: 3, fields: 'metrics,raw' },
      })
      expect(second.body.map((r) => r.metrics[0]?.dimension_value)).toEqual([
        '2024-05-04',
        '2024-05-05',
        '2024-05-06',
      ])
      expect(sent('/v1beta/properties')[0]?.body).toMatchObject({
        limit: '3',
        offset: '3',
        returnPropertyQuota: true,
      })
      expect(second.body[0]?.raw).toMatchObject({
        rowCount: 7,
        propertyQuota: { tokensPerHour: { remaining: expect.any(Number) } },
      })
      const last = await h.api<Report[]>('GET', `${base()}/report`, { query: { ...q, offset: 6 } })
      expect(last.body).toHaveLength(1)
    })

    it('refuses a raw parameter Unigate sets in the runReport body; any other joins the body', async () => {
      emu.clearRequests()
      const q = { property_id: id(), start_gte: '2024-05-01', end_lt: '2024-05-08', dimension: 'DATE' }
      for (const [raw, why] of [
        ['limit=1', 'Unigate pages with limit and offset'],
        ['offset=2', 'Unigate pages with limit and offset'],
        ['dateRanges=x', 'use start_gte and end_lt'],
        ['metrics=sessions', 'use type'],
        ['orderBys=x', 'Unigate orders the rows it pages with limit and offset'],
      ] as const) {
        const res = await h.api<Rec>('GET', `${base()}/report`, { query: { ...q, raw } })
        expect(res.status, raw).toBe(400)
        expect(String(res.body.message)).toMatch(
          new RegExp(`^raw: '${raw.split('=')[0]}' is set by Unigate for .*; ${why}$`),
        )
      }
      expect(sent('/v1beta/properties')).toEqual([])
      const res = await h.api<Rec[]>('GET', `${base()}/report`, {
        query: { ...q, raw: 'keepEmptyRows=true' },
      })
      expect(res.status).toBe(200)
      expect(sent('/v1beta/properties')[0]?.body).toMatchObject({ keepEmptyRows: true, limit: '100' })
    })

    it('sends raw runReport objects as JSON, so a dimensionFilter or metricFilter narrows the rows', async () => {
      const q = {
        property_id: id(),
        start_gte: '2024-05-01',
        end_lt: '2024-05-08',
        dimension: 'COUNTRY',
        type: 'SESSIONS',
      }
      const all = await h.api<Report[]>('GET', `${base()}/report`, { query: q })
      const rows = all.body.map((r) => r.metrics[0]!)
      expect(rows.length).toBeGreaterThan(3)
      emu.clearRequests()
      const dimensionFilter = {
        filter: {
          fieldName: 'country',
          inListFilter: { values: [rows[1]!.dimension_value, rows[2]!.dimension_value] },
        },
      }
      const byCountry = await h.api<Report[]>('GET', `${base()}/report`, {
        query: {
          ...q,
          raw: new URLSearchParams({
            dimensionFilter: JSON.stringify(dimensionFilter),
            metricAggregations: 'TOTAL',
            keepEmptyRows: 'true',
            currencyCode: 'EUR',
          }).toString(),
        },
      })
      expect(byCountry.status, JSON.stringify(byCountry.body)).toBe(200)
      expect(byCountry.body.map((r) => r.metrics[0])).toEqual([rows[1], rows[2]])
      expect(sent('/v1beta/properties')[0]?.body).toMatchObject({
        dimensionFilter,
        metricAggregations: ['TOTAL'],
        keepEmptyRows: true,
        currencyCode: 'EUR',
      })
      // A metric filter applies to the rows' totals, after grouping (RunReportRequest.metric_filter).
      const threshold = rows[2]!.value
      const metricFilter = {
        filter: {
          fieldName: 'sessions',
          numericFilter: { operation: 'GREATER_THAN_OR_EQUAL', value: { int64Value: String(threshold) } },
        },
      }
      const busy = await h.api<Report[]>('GET', `${base()}/report`, {
        query: { ...q, raw: new URLSearchParams({ metricFilter: JSON.stringify(metricFilter) }).toString() },
      })
      expect(busy.status, JSON.stringify(busy.body)).toBe(200)
      expect(busy.body.map((r) => r.metrics[0])).toEqual(rows.filter((r) => r.value >= threshold))
      expect(busy.body.length).toBeLessThan(rows.length)
    })

    it('refuses a raw runReport value of the wrong type, or a name the body cannot take, naming it', async () => {
      emu.clearRequests()
      const q = { property_id: id(), start_gte: '2024-05-01', end_lt: '2024-05-08' }
      for (const [raw, message] of [
        ['dimensionFilter=country', /^raw\.dimensionFilter: give a JSON object/],
        ['metricFilter=[]', /^raw\.metricFilter: give a JSON object/],
        ['comparisons={}', /^raw\.comparisons: give a JSON array/],
        ['metricAggregations=[1]', /^raw\.metricAggregations: give/],
        ['keepEmptyRows=yes', /^raw\.keepEmptyRows: give true or false/],
        ['pageSize=5', /^raw: GA4's runReport body takes no 'pageSize'; .*dimensionFilter, metricFilter/],
        ['property=properties/1', /^raw: 'property' is set by Unigate for .*; use property_id$/],
        [
          `dimensionFilter=${'{"notExpression":'.repeat(70)}{}${'}'.repeat(70)}`,
          /^raw\.dimensionFilter: nested more than 64/,
        ],
      ] as const) {
        const res = await h.api<Rec>('GET', `${base()}/report`, { query: { ...q, raw } })
        expect(res.status, raw).toBe(400)
        expect(String(res.body.message), raw).toMatch(message)
      }
      expect(sent('/v1beta/properties')).toEqual([])
    })

    it('breaks down by a non-time dimension, largest first, over the whole range', async () => {
      const res = await h.api<Report[]>('GET', `${base()}/report`, {
        query: {
          property_id: id(),
          start_gte: '2024-05-01',
          end_lt: '2024-05-08',
          dimension: 'COUNTRY',
          type: 'SESSIONS',
        },
      })
      const values = res.body.map((r) => r.metrics[0]!.value)
      expect(values).toEqual([...values].sort((a, b) => b - a))
      expect(new Set(res.body.map((r) => r.start_at)).size).toBe(1)
      expect(res.body[0]?.metrics[0]?.dimension).toBe('COUNTRY')
    })

    it('reports 0 for a breakdown value without any of the metric, as GA4 does when asked to keep empty rows', async () => {
      // GA4 leaves out rows whose metrics are all 0 unless keepEmptyRows is true (RunReportRequest.keep_empty_rows).
      const q = {
        property_id: id(),
        start_gte: '2024-05-01',
        end_lt: '2024-05-08',
        dimension: 'EVENT_NAME',
        type: 'TRANSACTIONS',
      }
      const res = await h.api<Report[]>('GET', `${base()}/report`, { query: q })
      expect(res.status).toBe(200)
      const byEvent = Object.fromEntries(
        res.body.map((r) => [r.metrics[0]?.dimension_value, r.metrics[0]?.value]),
      )
      expect(byEvent.page_view).toBe(0)
      expect(byEvent.purchase).toBeGreaterThan(0)
      expect(sent('/v1beta/properties').at(-1)?.body).toMatchObject({ keepEmptyRows: true })
      // A caller may still ask GA4 to leave them out.
      const lean = await h.api<Report[]>('GET', `${base()}/report`, {
        query: { ...q, raw: 'keepEmptyRows=false' },
      })
      expect(lean.body.map((r) => r.metrics[0]?.dimension_value)).toEqual(['purchase'])
    })

    it('defaults to the last 28 days and GA4’s headline metrics', async () => {
      const res = await h.api<Report[]>('GET', `${base()}/report`, { query: { property_id: id() } })
      expect(res.status).toBe(200)
      const body = sent('/v1beta/properties')[0]?.body as Rec
      expect(body.dateRanges).toEqual([{ startDate: '27daysAgo', endDate: 'today' }])
      expect((body.metrics as unknown[]).length).toBe(10)
      expect(res.body).toHaveLength(1)
      const span = Date.parse(res.body[0]!.end_at) - Date.parse(res.body[0]!.start_at)
      expect(Math.round(span / 86_400_000)).toBe(28)
    })

    it('refuses what it cannot report faithfully', async () => {
      const cases: [Rec, number, RegExp][] = [
        [{}, 400, /property_id is required/],
        [{ property_id: id(), type: 'VIDEO_VIEWS' }, 501, /no metric for report type VIDEO_VIEWS/],
        [{ property_id: id(), dimension: 'VIDEO' }, 501, /cannot break reports down by VIDEO/],
        [{ property_id: id(), start_gte: '2024-05-01T10:00:00Z' }, 400, /whole days/],
        [{ property_id: id(), updated_gte: '2024-05-01' }, 501, /updated_gte/],
      ]
      for (const [query, status, message] of cases) {
        const res = await h.api<Rec>('GET', `${base()}/report`, { query: query as Record<string, string> })
        expect(res.status, JSON.stringify(query)).toBe(status)
        expect(String(res.body.message)).toMatch(message)
      }
    })
  })

  describe('events (Measurement Protocol)', () => {
    it('sends the event with the stream secret, no bearer token, and returns our id', async () => {
      const res = await h.api<Rec>('POST', `${base()}/event`, {
        body: {
          event_type: 'PURCHASE',
          visitor_id: '555.777',
          value: 12.5,
          currency: 'EUR',
          page_url: 'https://shop.example/checkout',
        },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        name: 'purchase',
        event_type: 'PURCHASE',
        visitor_id: '555.777',
        value: 12.5,
      })
      const id = res.body.id as string
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      const [call] = sent('/mp/collect')
      const stream = emu.seed.streams[0]!
      expect(call?.query).toEqual({ measurement_id: stream.measurementId, api_secret: stream.apiSecret })
      expect(call?.headers.authorization).toBeUndefined()
      const collected = emu.collected().find((e) => e.params.event_id === id)
      expect(collected).toMatchObject({
        name: 'purchase',
        clientId: '555.777',
        params: { value: 12.5, currency: 'EUR', page_location: 'https://shop.example/checkout' },
      })
    })

    it("sends a long page URL, referrer and title within GA4's own limits, and a screen_view", async () => {
      const pageUrl = `https://shop.example/search?q=${'a'.repeat(900)}`
      const res = await h.api<Rec>('POST', `${base()}/event`, {
        body: {
          event_type: 'PAGE_VIEW',
          visitor_id: 'long.1',
          page_url: pageUrl,
          page_title: 't'.repeat(250),
          page_referrer: `https://ref.example/${'r'.repeat(300)}`,
        },
      })
      expect(res.status).toBe(200)
      const collected = emu.collected().find((e) => e.params.event_id === res.body.id)
      expect(collected?.params.page_location).toBe(pageUrl)
      const tooLong = await h.api<Rec>('POST', `${base()}/event`, {
        body: { event_type: 'PAGE_VIEW', visitor_id: 'long.2', page_title: 't'.repeat(301) },
      })
      expect(tooLong.status).toBe(400)
      expect(String(tooLong.body.message)).toContain('300')
      const screen = await h.api<Rec>('POST', `${base()}/event`, {
        body: {
          event_type: 'SCREEN_VIEW',
          visitor_id: 'app.1',
          raw: { params: { screen_name: 'Home' } },
        },
      })
      expect(screen.status).toBe(200)
      expect(emu.collected().find((e) => e.params.event_id === screen.body.id)?.name).toBe('screen_view')
    })

    it('refuses events GA4 would silently drop, and connections without stream credentials', async () => {
      const reserved = await h.api<Rec>('POST', `${base()}/event`, {
        body: { event_type: 'SESSION_START', visitor_id: 'c' },
      })
      expect(reserved.status).toBe(400)
      expect(sent('/mp/collect')).toHaveLength(0)
      const other = await connect({ access_token: token })
      const res = await h.api<Rec>('POST', `/analytics/${other.body.id}/event`, {
        body: { name: 'x', visitor_id: 'c' },
      })
      expect(res.status).toBe(400)
      expect(String(res.body.message)).toMatch(/measurement_id/)
    })
  })

  describe('provider failures', () => {
    it('retries a 429 on a report, then succeeds', async () => {
      emu.fault({ status: 429, pathPattern: ':runReport$' })
      const res = await h.api('GET', `${base()}/report`, { query: { property_id: '1000' } })
      expect(res.status).toBe(200)
      expect(sent('/v1beta/properties/1000:runReport')).toHaveLength(2)
    })

    it('answers 429 once GA4 keeps refusing for quota', async () => {
      emu.fault({ status: 429, pathPattern: ':runReport$', times: 5 })
      const res = await h.api<Rec>('GET', `${base()}/report`, { query: { property_id: '1000' } })
      expect(res.status).toBe(429)
      expect(String(res.body.message)).toMatch(/rate limiting/)
      expect(sent('/v1beta/properties/1000:runReport')).toHaveLength(3)
    })

    it('answers 429 when the property’s hourly tokens run out', async () => {
      emu.state.quotas.setLimits({ tokensPerHour: 1 })
      try {
        expect((await h.api('GET', `${base()}/report`, { query: { property_id: '1001' } })).status).toBe(200)
        expect((await h.api('GET', `${base()}/report`, { query: { property_id: '1001' } })).status).toBe(429)
      } finally {
        emu.state.quotas.setLimits({ tokensPerHour: 40_000 })
      }
    })

    it('retries reads on 503 and gives 502 when GA4 stays down', async () => {
      emu.fault({ status: 503, pathPattern: '^/v1beta/properties/1000$', times: 5 })
      const res = await h.api<Rec>('GET', `${base()}/property/1000`)
      expect(res.status).toBe(502)
      expect(String(res.body.message)).toContain('503')
      expect(sent('/v1beta/properties/1000')).toHaveLength(3)
    })

    it('never retries an event send, which GA4 could count twice', async () => {
      emu.fault({ status: 500, pathPattern: '^/mp/collect$' })
      const res = await h.api('POST', `${base()}/event`, { body: { name: 'x', visitor_id: 'c' } })
      expect(res.status).toBe(502)
      expect(sent('/mp/collect')).toHaveLength(1)
    })

    it('answers 504 when GA4 does not answer in time', async () => {
      emu.fault({ delayMs: 5_000, pathPattern: '^/v1beta/properties/1000$' })
      const res = await h.api('GET', `${base()}/property/1000`)
      expect(res.status).toBe(504)
    })
  })
})

/** The zone's UTC offset in ms at an instant (positive east of Greenwich). */
function offsetOf(timeZone: string, iso: string): number {
  const instant = new Date(iso)
  const wall = new Date(instant.toLocaleString('en-US', { timeZone, hour12: false }))
  const utc = new Date(instant.toLocaleString('en-US', { timeZone: 'UTC', hour12: false }))
  return wall.getTime() - utc.getTime()
}

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { EVENT_TYPES } from '../src/models/index.js'
import { type Harness, startHarness } from './support/harness.js'
import {
  connectPosthog,
  POSTHOG_DATA_UNTIL,
  sentHogQL,
  sentListHogQL,
  startPosthog,
} from './support/posthog.js'

/** `YYYY-MM-DD`, so many days before the end of the seeded data. */
const dayBefore = (days: number) =>
  new Date(POSTHOG_DATA_UNTIL.getTime() - days * 86_400_000).toISOString().slice(0, 10)

type Rec = Record<string, unknown> & { id: string }
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Every key and value anywhere in a response, to prove there is no null in it. */
function hasNull(value: unknown): boolean {
  if (value === null) return true
  if (Array.isArray(value)) return value.some(hasNull)
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => k !== 'raw' && hasNull(v))
  }
  return false
}

describe('the analytics API end to end against the PostHog emulator', () => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  const path = (object: string, id?: string) =>
    `/analytics/${conn}/${object}${id ? `/${encodeURIComponent(id)}` : ''}`

  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness('sqlite')
    conn = await connectPosthog(h, emulator)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })
  beforeEach(async () => {
    emulator.clearRequests()
    emulator.clearFaults()
    await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: false } })
  })

  describe('every operation', () => {
    it('lists events as a bare array of unified records, paging through the provider', async () => {
      const first = await h.api<Rec[]>('GET', path('event'), { query: { limit: 5 } })
      expect(first.status).toBe(200)
      expect(first.headers['content-type']).toMatch(/^application\/json/)
      expect(first.body).toHaveLength(5)
      for (const e of first.body) {
        expect(e.id).toMatch(/^[0-9a-f-]{36}$/)
        expect(e.created_at).toMatch(ISO)
        expect(typeof e.name).toBe('string')
        expect(EVENT_TYPES).toContain(e.event_type)
        expect(e.raw).toBeUndefined()
      }
      expect(hasNull(first.body)).toBe(false)
      const second = await h.api<Rec[]>('GET', path('event'), { query: { limit: 5, offset: 5 } })
      expect(second.body).toHaveLength(5)
      expect(second.body.map((e) => e.id)).not.toEqual(expect.arrayContaining([first.body[0]!.id]))
      const queries = sentListHogQL(emulator)
      expect(queries[0]).toMatch(/FROM events[\s\S]*LIMIT 5$/)
      expect(queries[1]).toMatch(/LIMIT 5 OFFSET 5$/)
      const past = await h.api<Rec[]>('GET', path('event'), { query: { limit: 5, offset: 100_000 } })
      expect(past.body).toEqual([])
    })

    it('gets one event, and answers 404 for one that does not exist', async () => {
      const [one] = (await h.api<Rec[]>('GET', path('event'), { query: { limit: 1 } })).body
      const got = await h.api<Rec>('GET', path('event', one!.id))
      expect(got.status).toBe(200)
      expect(got.body).toMatchObject({ id: one!.id, name: one!.name })
      const missing = await h.api('GET', path('event', '00000000-0000-4000-8000-000000000000'))
      expect(missing.status).toBe(404)
      expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found' })
    })

    it('creates an event with an id generated here, sent to PostHog as its uuid, then readable', async () => {
      const created = await h.api<Rec>('POST', path('event'), {
        body: {
          name: 'signed_up',
          event_type: 'SIGN_UP',
          visitor_id: 'visitor-e2e',
          page_url: 'https://acme.test/',
        },
      })
      expect(created.status).toBe(200)
      expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/)
      const capture = emulator.requests().find((r) => r.method === 'POST' && r.path.startsWith('/i/v0/e'))
      expect(capture?.body).toMatchObject({
        uuid: created.body.id,
        distinct_id: 'visitor-e2e',
        event: 'signed_up',
      })
      // The visitor is the person PostHog made for the new distinct id, under the uuid it gives it.
      expect(created.body.visitor_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/)
      const read = await h.api<Rec>('GET', path('event', created.body.id))
      expect(read.body).toMatchObject({
        id: created.body.id,
        visitor_id: created.body.visitor_id,
        event_type: 'SIGN_UP',
      })
      const visitor = await h.api<Rec>('GET', path('visitor', String(created.body.visitor_id)))
      expect(visitor.body).toMatchObject({ id: created.body.visitor_id })
    })

    it('lists and gets sessions', async () => {
      const sessions = await h.api<Rec[]>('GET', path('session'), { query: { limit: 3 } })
      expect(sessions.status).toBe(200)
      expect(sessions.body).toHaveLength(3)
      expect(sessions.body[0]).toMatchObject({ id: expect.any(String), start_at: expect.stringMatching(ISO) })
      const one = await h.api<Rec>('GET', path('session', sessions.body[0]!.id))
      expect(one.body).toMatchObject({ id: sessions.body[0]!.id, visitor_id: sessions.body[0]!.visitor_id })
    })

    it('creates, lists, gets, updates, patches and removes a visitor', async () => {
      const created = await h.api<Rec>('POST', path('visitor'), {
        body: { email: 'ada@example.com', name: 'Ada' },
      })
      expect(created.status).toBe(200)
      const id = created.body.id
      expect(created.body).toMatchObject({ email: 'ada@example.com', name: 'Ada' })
      const got = await h.api<Rec>('GET', path('visitor', id))
      expect(got.body).toMatchObject({ id, email: 'ada@example.com' })
      const listed = await h.api<Rec[]>('GET', path('visitor'), { query: { query: 'ada@example.com' } })
      expect(listed.body.map((v) => v.id)).toContain(id)
      const put = await h.api<Rec>('PUT', path('visitor', id), {
        body: { name: 'Ada Lovelace', email: 'ada@example.com' },
      })
      expect(put.body).toMatchObject({ id, name: 'Ada Lovelace' })
      const patched = await h.api<Rec>('PATCH', path('visitor', id), { body: { language: 'en' } })
      expect(patched.body).toMatchObject({ id, name: 'Ada Lovelace', language: 'en' })
      const removed = await h.api('DELETE', path('visitor', id))
      expect(removed.status).toBe(200)
      expect(removed.text).toBe('')
      expect((await h.api('GET', path('visitor', id))).status).toBe(404)
    })

    it("refuses a page of more projects than asked for, before reading any project's detail", async () => {
      const projects = Array.from({ length: 2000 }, (_, i) => ({ id: 100 + i, name: `p${i}` }))
      emulator.fault({
        status: 200,
        rawBody: JSON.stringify({ count: 2000, next: null, previous: null, results: projects }),
        pathPattern: '^/api/organizations/[^/]+/projects/$',
      })
      const res = await h.api<Rec>('GET', path('property'), { query: { limit: 10, fields: 'id,created_at' } })
      expect(res.status).toBe(502)
      expect(res.body.message).toContain('PostHog answered 2000 projects for a page of 10')
      expect(emulator.requests().filter((r) => /^\/api\/projects\/\d+\/$/.test(r.path))).toEqual([])
    })

    it('creates, lists, gets, updates, patches and removes a property', async () => {
      const created = await h.api<Rec>('POST', path('property'), {
        body: { name: 'E2E site', timezone: 'Europe/Paris' },
      })
      expect(created.status).toBe(200)
      const id = created.body.id
      expect(created.body).toMatchObject({
        name: 'E2E site',
        timezone: 'Europe/Paris',
        parent_id: expect.any(String),
      })
      const listed = await h.api<Rec[]>('GET', path('property'))
      expect(listed.body.map((p) => p.id)).toContain(id)
      expect((await h.api<Rec>('GET', path('property', id))).body).toMatchObject({ id, name: 'E2E site' })
      expect(
        (await h.api<Rec>('PUT', path('property', id), { body: { name: 'Renamed' } })).body,
      ).toMatchObject({ name: 'Renamed' })
      expect(
        (await h.api<Rec>('PATCH', path('property', id), { body: { timezone: 'UTC' } })).body,
      ).toMatchObject({
        name: 'Renamed',
        timezone: 'UTC',
      })
      const removed = await h.api('DELETE', path('property', id))
      expect(removed.status).toBe(200)
      expect((await h.api('GET', path('property', id))).status).toBe(404)
    })

    it("answers DATE buckets of a New York project as New York's days, in UTC instants", async () => {
      const res = await h.api<Rec[]>('GET', path('report'), {
        query: { property_id: '2', start_gte: dayBefore(20), dimension: 'DATE', type: 'EVENTS' },
      })
      expect(res.status).toBe(200)
      expect(res.body.length).toBeGreaterThan(2)
      // Past the first (clipped at start_gte) bucket, each starts at a New York midnight: 04:00Z or 05:00Z.
      for (const report of res.body.slice(1, -1)) {
        const day = (report.metrics as { dimension_value: string }[])[0]!.dimension_value
        expect(String(report.start_at)).toMatch(new RegExp(`^${day}T0[45]:00:00\\.000Z$`))
      }
    })

    it('counts in a report without end_lt only what came before the end_at it answers', async () => {
      // PostHog keeps an event stamped ahead of its clock (within a day); the report's end_at says now.
      const soon = new Date(Date.now() + 2 * 3_600_000).toISOString()
      const made = await h.api<Rec>('POST', path('event'), {
        body: { name: 'clock_skew', visitor_id: 'visitor-skew', raw: { timestamp: soon } },
      })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const window = { start_gte: dayBefore(1), type: 'EVENTS' }
      const open = await h.api<Rec[]>('GET', path('report'), { query: window })
      expect(open.status, JSON.stringify(open.body)).toBe(200)
      const endAt = String(open.body[0]?.end_at)
      const closed = await h.api<Rec[]>('GET', path('report'), { query: { ...window, end_lt: endAt } })
      expect(closed.status, JSON.stringify(closed.body)).toBe(200)
      expect(open.body[0]?.metrics).toEqual(closed.body[0]?.metrics)
      expect(sentHogQL(emulator).at(-2)).toContain('timestamp <')
    })

    it('lists reports with metrics broken down by a dimension', async () => {
      const res = await h.api<Rec[]>('GET', path('report'), {
        query: { start_gte: dayBefore(10), end_lt: dayBefore(7), dimension: 'DATE', type: 'PAGE_VIEWS' },
      })
      expect(res.status).toBe(200)
      expect(res.body.length).toBeGreaterThan(0)
      for (const report of res.body) {
        const metrics = report.metrics as Record<string, unknown>[]
        expect(metrics[0]).toMatchObject({ type: 'PAGE_VIEWS', dimension: 'DATE', value: expect.any(Number) })
      }
    })
  })

  describe('list parameters and filters reach the provider', () => {
    it('pushes filters into the query and answers only matching records', async () => {
      const [sample] = (await h.api<Rec[]>('GET', path('event'), { query: { limit: 1, type: 'PAGE_VIEW' } }))
        .body
      const visitor = String(sample!.visitor_id)
      const res = await h.api<Rec[]>('GET', path('event'), {
        query: {
          visitor_id: visitor,
          type: 'PAGE_VIEW',
          start_gte: dayBefore(30),
          end_lt: POSTHOG_DATA_UNTIL.toISOString(),
        },
      })
      expect(res.body.length).toBeGreaterThan(0)
      for (const e of res.body) expect(e).toMatchObject({ visitor_id: visitor, event_type: 'PAGE_VIEW' })
      const q = sentHogQL(emulator).at(-1)!
      expect(q).toContain(`person_id = '${visitor}'`)
      expect(q).toContain(`timestamp >= toDateTime('${dayBefore(30)}`)
    })

    it('sorts when the integration can, and answers 501 naming it when it cannot', async () => {
      const asc = await h.api<Rec[]>('GET', path('event'), {
        query: { sort: 'created_at', order: 'asc', limit: 20 },
      })
      const times = asc.body.map((e) => String(e.created_at))
      expect(times).toEqual([...times].sort())
      const visitorSort = await h.api('GET', path('visitor'), { query: { sort: 'name' } })
      expect(visitorSort.status).toBe(501)
      expect(visitorSort.body).toMatchObject({
        message: expect.stringMatching(
          /PostHog \(posthog\) cannot apply 'sort' when listing analytics_visitor/,
        ),
      })
      const updated = await h.api('GET', path('event'), { query: { updated_gte: '2024-01-01' } })
      expect(updated.status).toBe(501)
      expect(updated.body).toMatchObject({ message: expect.stringContaining("'updated_gte'") })
      expect(sentListHogQL(emulator)).toHaveLength(1)
    })

    it('asks PostHog only for the properties the listed fields need, with the same values', async () => {
      const all = await h.api<Rec[]>('GET', path('event'), { query: { limit: 20 } })
      const [wide] = sentHogQL(emulator)
      emulator.clearRequests()
      const few = await h.api<Rec[]>('GET', path('event'), {
        query: { limit: 20, fields: 'id,name,event_type,created_at' },
      })
      const [narrow] = sentHogQL(emulator)
      expect(wide).toContain('$current_url')
      expect(narrow).toContain('$event_type')
      expect(narrow).not.toContain('$current_url')
      expect(narrow).not.toContain('$geoip_country_name')
      expect(few.body).toEqual(
        all.body.map((e) => ({ id: e.id, name: e.name, event_type: e.event_type, created_at: e.created_at })),
      )
    })

    it('keeps each field set to its own columns and fields when field sets alternate (each planned once)', async () => {
      const all = (await h.api<Rec[]>('GET', path('event'), { query: { limit: 20 } })).body
      const pick = (names: string[]) => all.map((e) => Object.fromEntries(names.map((n) => [n, e[n]])))
      const sets = [
        'id,name,event_type',
        'id,created_at,page_url',
        'id,name,event_type',
        'id,created_at,page_url',
      ]
      emulator.clearRequests()
      for (const fields of sets) {
        const res = await h.api<Rec[]>('GET', path('event'), { query: { limit: 20, fields } })
        expect(res.body, fields).toEqual(pick(fields.split(',')))
      }
      const sent = sentHogQL(emulator)
      expect(sent).toHaveLength(4)
      for (const [i, query] of sent.entries()) {
        expect(query.includes('$event_type'), sets[i]).toBe(i % 2 === 0)
        expect(query.includes('$current_url'), sets[i]).toBe(i % 2 === 1)
      }
    })

    it('adds the decoded raw query parameter to the provider request', async () => {
      await h.api('GET', path('visitor'), { query: { limit: 2, raw: 'email=nobody%40example.com' } })
      const call = emulator.requests().find((r) => r.path.includes('/persons/'))
      expect(call?.query).toMatchObject({ email: 'nobody@example.com', limit: '2' })
    })

    it('refuses a raw parameter Unigate sets on REST lists and HogQL bodies, instead of letting it silently lose', async () => {
      const paging = 'Unigate pages with limit and offset'
      for (const [object, raw, why] of [
        ['visitor', 'limit=500', paging],
        ['visitor', 'offset=3', paging],
        ['visitor', 'search=someone', 'use query'],
        ['property', 'limit=500', paging],
        ['event', 'distinct_id=someone', 'use visitor_id'],
        ['visitor', 'distinct_id=someone', 'use visitor_id'],
        [
          'event',
          'query={"kind":"HogQLQuery","query":"select 1"}',
          'Unigate sends its own HogQL query; narrow it with the unified filters',
        ],
        ['session', 'name=mine', 'Unigate names its own HogQL query'],
        ['report', 'query=x', 'Unigate sends its own HogQL query; narrow it with the unified filters'],
      ] as const) {
        const res = await h.api<Rec>('GET', path(object), { query: { raw } })
        expect(res.status, `${object} ${raw}`).toBe(400)
        expect(String(res.body.message)).toBe(
          `raw: '${raw.split('=')[0]}' is set by Unigate for PostHog; ${why}`,
        )
      }
      expect(emulator.requests()).toEqual([])
    })
  })

  describe('field selection (spec section 7)', () => {
    it('rule 1: without fields, every fast field and no raw', async () => {
      const [v] = (await h.api<Rec[]>('GET', path('visitor'), { query: { limit: 1 } })).body
      expect(v).toHaveProperty('id')
      expect(v).not.toHaveProperty('raw')
      expect(v).not.toHaveProperty('total_events')
    })

    it('rule 2: fields given repeated or comma-joined return exactly those fields', async () => {
      const repeated = await h.api<Rec[]>('GET', path('event'), {
        query: { limit: 3, fields: ['id', 'name'] },
      })
      const joined = await h.api<Rec[]>('GET', path('event'), { query: { limit: 3, fields: 'id,name' } })
      expect(repeated.body).toEqual(joined.body)
      for (const e of repeated.body) expect(Object.keys(e).sort()).toEqual(['id', 'name'])
    })

    it('rule 3: raw in fields adds the provider record unmodified', async () => {
      const [e] = (await h.api<Rec[]>('GET', path('event'), { query: { limit: 1, fields: 'id,raw' } })).body
      expect(Object.keys(e!).sort()).toEqual(['id', 'raw'])
      expect(e!.raw).toMatchObject({ uuid: e!.id, event: expect.any(String), properties: expect.any(Object) })
    })

    it('rule 4: raw.<name> asks the provider for that field by name and returns it alone in raw', async () => {
      const events = (
        await h.api<Rec[]>('GET', path('event'), { query: { limit: 20, fields: 'id,raw.$browser' } })
      ).body
      const withBrowser = events.filter((e) => e.raw)
      expect(withBrowser.length).toBeGreaterThan(0)
      for (const e of withBrowser)
        expect(e).toEqual({ id: expect.any(String), raw: { $browser: expect.any(String) } })
      for (const e of events) expect(Object.keys(e).every((k) => k === 'id' || k === 'raw')).toBe(true)
      expect(sentHogQL(emulator).at(-1)).toContain('properties.$browser')
    })

    it.each([
      { optIn: false, fields: undefined, fetched: false },
      { optIn: false, fields: 'id,email', fetched: false },
      { optIn: false, fields: 'id,total_events', fetched: true },
      { optIn: true, fields: undefined, fetched: true },
      { optIn: true, fields: 'id,email', fetched: false },
      { optIn: true, fields: 'id,total_events', fetched: true },
    ])(
      'rules 5-7, opt-in $optIn with fields=$fields: slow fields fetched = $fetched',
      async ({ optIn, fields, fetched }) => {
        await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: optIn } })
        emulator.clearRequests()
        const res = await h.api<Rec[]>('GET', path('visitor'), {
          query: { limit: 3, ...(fields ? { fields } : {}) },
        })
        expect(res.status).toBe(200)
        const extraCalls = sentHogQL(emulator).filter((q) => q.includes('GROUP BY person_id'))
        expect(extraCalls.length).toBe(fetched ? 1 : 0)
        for (const v of res.body) {
          expect('total_events' in v).toBe(fetched)
          if (fields) expect(Object.keys(v).every((k) => fields.split(',').includes(k))).toBe(true)
        }
      },
    )

    it('rule 8: a nested fast raw field causes no extra call', async () => {
      const res = await h.api<Rec[]>('GET', path('session'), {
        query: { limit: 2, fields: 'id,raw.$entry_current_url' },
      })
      expect(res.status).toBe(200)
      expect(sentHogQL(emulator)).toHaveLength(1)
    })

    it('rule 8: a slow field fetched by name on sessions costs one grouped call for the page', async () => {
      const res = await h.api<Rec[]>('GET', path('session'), { query: { limit: 4, fields: 'id,browser' } })
      expect(res.body.some((s) => typeof s.browser === 'string')).toBe(true)
      for (const s of res.body) expect(Object.keys(s).every((k) => k === 'id' || k === 'browser')).toBe(true)
      expect(sentHogQL(emulator)).toHaveLength(2)
    })
  })

  describe('errors, one class at a time', () => {
    it('400 for bad input, naming the problem; never a 500', async () => {
      const cases: [string, string, Record<string, string | number>, RegExp][] = [
        ['GET', 'event', { fields: 'id,bogus' }, /unknown field 'bogus'/],
        ['GET', 'event', { start_gte: '2024-13-45' }, /start_gte/],
        ['GET', 'event', { limit: -1 }, /limit/],
        ['GET', 'event', { limit: 'ten' }, /limit/],
        ['GET', 'event', { offset: -5 }, /offset/],
        ['GET', 'event', { order: 'sideways' }, /order/],
        ['GET', 'event', { sort: 'nope' }, /sort/],
        [
          'GET',
          'event',
          { proprety_id: '1' },
          /unknown query parameter 'proprety_id'.*allowed:.*property_id/,
        ],
        ['GET', 'report', { type: 'NOT_A_METRIC' }, /NOT_A_METRIC/],
      ]
      for (const [method, object, query, message] of cases) {
        const res = await h.api(method, path(object), { query })
        expect(res.status, JSON.stringify(query)).toBe(400)
        expect(res.body).toMatchObject({
          statusCode: 400,
          error: 'Bad Request',
          message: expect.stringMatching(message),
        })
      }
    })

    it('400 for wrongly typed, unknown or malformed bodies, and 413 for an oversized one', async () => {
      const wrongType = await h.api('POST', path('visitor'), { body: { email: 42 } })
      expect(wrongType.status).toBe(400)
      expect(wrongType.body).toMatchObject({ message: expect.stringContaining('email') })
      const badEnum = await h.api('POST', path('event'), {
        body: { name: 'x', visitor_id: 'v', event_type: 'TELEPORT' },
      })
      expect(badEnum.status).toBe(400)
      expect(badEnum.body).toMatchObject({ message: expect.stringContaining('PAGE_VIEW') })
      const unknown = await h.api('POST', path('visitor'), { body: { emial: 'a@b.c' } })
      expect(unknown.status).toBe(400)
      expect(unknown.body).toMatchObject({ message: expect.stringContaining("'emial'") })
      const malformed = await h.api('POST', path('visitor'), {
        body: '{"email": ',
        headers: { 'content-type': 'application/json' },
      })
      expect(malformed.status).toBe(400)
      const huge = await h.api('POST', path('visitor'), { body: { name: 'x'.repeat(2_000_000) } })
      expect(huge.status).toBe(413)
      expect(huge.body).toMatchObject({ statusCode: 413 })
      expect(emulator.requests().filter((r) => r.method !== 'GET')).toHaveLength(0)
    })

    it('401 without a valid key, 404 for an unknown connection', async () => {
      expect((await h.api('GET', path('event'), { key: null })).status).toBe(401)
      const unknown = await h.api('GET', '/analytics/cn_na_doesnotexist/event')
      expect(unknown.status).toBe(404)
      expect(unknown.body).toMatchObject({ message: expect.stringContaining('cn_na_doesnotexist') })
      expect((await h.api('GET', `/analytics/${conn}/nothing`)).status).toBe(404)
    })

    it('403 with a re-authorize hint when the provider rejects the credentials; the connection is marked unhealthy', async () => {
      emulator.fault({ status: 401, pathPattern: '/query/' })
      const res = await h.api('GET', path('event'), { query: { limit: 1 } })
      expect(res.status).toBe(403)
      expect(res.body).toMatchObject({ message: expect.stringMatching(/re-authorize/) })
      const c = await h.api<Rec>('GET', `/unified/connection/${conn}`)
      expect(c.body).toMatchObject({
        last_unhealthy_code: '401',
        last_unhealthy_at: expect.stringMatching(ISO),
      })
      expect((await h.api('GET', path('event'), { query: { limit: 1 } })).status).toBe(200)
      const healthy = await h.api<Rec>('GET', `/unified/connection/${conn}`)
      expect(String(healthy.body.last_healthy_at) > String(healthy.body.last_unhealthy_at)).toBe(true)
    })

    it('retries a 429 within its retry-after, and passes a longer one on as 429 with retry-after', async () => {
      emulator.fault({ status: 429, headers: { 'retry-after': '1' }, pathPattern: '/query/' })
      expect((await h.api('GET', path('event'), { query: { limit: 1 } })).status).toBe(200)
      expect(sentListHogQL(emulator)).toHaveLength(2)
      emulator.fault({ status: 429, headers: { 'retry-after': '120' }, pathPattern: '/query/' })
      const limited = await h.api('GET', path('event'), { query: { limit: 1 } })
      expect(limited.status).toBe(429)
      expect(limited.headers['retry-after']).toBe('120')
    })

    it("passes a provider's absurd retry-after on as whole seconds, at most a day", async () => {
      // `Number('1e308') * 1000` is Infinity: the answer said `retry-after: Infinity`, and `1e300` said
      // `1e+300`, neither of which a client reads as delta-seconds (RFC 9110 section 10.2.3).
      for (const [given, passed] of [
        ['1e308', '86400'],
        ['1e300', '86400'],
        ['99999999999', '86400'],
        ['200.5', '201'],
      ]) {
        emulator.fault({ status: 429, headers: { 'retry-after': given! }, pathPattern: '/query/' })
        const limited = await h.api('GET', path('event'), { query: { limit: 1 } })
        expect(limited.status).toBe(429)
        expect(limited.headers['retry-after']).toBe(passed)
      }
    })

    it('502 with the provider status after retrying a failing provider, 504 when it hangs', async () => {
      emulator.fault({ status: 503, times: 3, pathPattern: '/query/' })
      const failing = await h.api('GET', path('event'), { query: { limit: 1 } })
      expect(failing.status).toBe(502)
      expect(failing.body).toMatchObject({ message: expect.stringContaining('PostHog answered 503') })
      emulator.fault({ delayMs: 8_000, pathPattern: '/query/' })
      const slow = await h.api('GET', path('event'), { query: { limit: 1 } })
      expect(slow.status).toBe(504)
    })

    it('501 naming the integration for an operation it cannot do', async () => {
      const res = await h.api('GET', `/analytics/${conn}/report/some-id`)
      expect(res.status).toBe(404)
      const fathomLike = await h.api('PUT', path('event', 'x'), { body: {} })
      expect(fathomLike.status).toBe(404)
    })
  })
})

import { describe, expect, it } from 'vitest'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_APP_ID,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
} from '../emulators/amplitude/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

describe('Amplitude through Unigate', () => {
  let h: Harness
  let emu: AmplitudeEmulator
  let conn: string
  const base = () => `/analytics/${conn}`
  const at = (path: string) => emu.requests().filter((r) => r.path === path)
  // Seeded data spans the 30 days before this; the export is read up to now, so keep windows recent-ish.
  const until = Date.now() - 2 * HOUR_MS

  useEmulatorSuite({
    start: () =>
      startAmplitudeEmulator({ seed: 9, users: 30, events: 600, until: new Date(until).toISOString() }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'amplitude',
        auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, region: 'eu', api_url: emu.url },
      })
    },
  })

  const eventId = (e: { $insert_id?: string; uuid: string }) => e.$insert_id ?? e.uuid
  const byTime = () =>
    [...emu.state.events].sort(
      (a, b) => a.eventTimeMs - b.eventTimeMs || eventId(a).localeCompare(eventId(b)),
    )

  it('refuses keys Amplitude rejects', async () => {
    const res = await h.api('POST', '/unified/connection', {
      body: {
        integration_type: 'amplitude',
        auth: { api_key: DEFAULT_API_KEY, secret_key: 'wrong', api_url: emu.url },
      },
    })
    expect(res.status).toBe(400)
  })

  it('reads the export zip of a window, trims it to event time, and pages it', async () => {
    const start = until - 10 * DAY_MS + 12_345
    const end = until - 3 * DAY_MS
    const expected = byTime()
      .filter((e) => e.eventTimeMs >= start && e.eventTimeMs < end)
      .map(eventId)
    expect(expected.length).toBeGreaterThan(50)
    const got: string[] = []
    for (let offset = 0; offset < expected.length; offset += 40) {
      const res = await h.api<Rec[]>('GET', `${base()}/event`, {
        query: {
          start_gte: new Date(start).toISOString(),
          end_lt: new Date(end).toISOString(),
          offset,
          limit: 40,
        },
      })
      expect(res.status).toBe(200)
      got.push(...res.body.map((e) => String(e.id)))
    }
    expect(got).toEqual(expected)
    const [call] = at('/api/2/export')
    const basic = Buffer.from(`${DEFAULT_API_KEY}:${DEFAULT_SECRET_KEY}`).toString('base64')
    expect(call?.headers.authorization).toBe(`Basic ${basic}`)
    expect(call?.query.start).toMatch(/^\d{8}T\d{2}$/)
  })

  it('bounds the export of a past window by the upload lateness it allows', async () => {
    const start = until - 20 * DAY_MS
    const end = until - 15 * DAY_MS
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: new Date(start).toISOString(), end_lt: new Date(end).toISOString(), limit: 1000 },
    })
    expect(res.body.map((e) => e.id)).toEqual(
      byTime()
        .filter((e) => e.eventTimeMs >= start && e.eventTimeMs < end)
        .map(eventId),
    )
    const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13).replace(/-/g, '')
    expect(at('/api/2/export')[0]?.query).toMatchObject({
      start: hour(start - HOUR_MS),
      end: hour(end + 7 * DAY_MS),
    })
  })

  it('maps fields and filters by visitor, session and type, exactly', async () => {
    const sample = byTime().find((e) => e.user_id && e.event_type === '[Amplitude] Page Viewed')
    const start = new Date(until - 31 * DAY_MS).toISOString()
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: start,
        visitor_id: String(sample?.user_id),
        type: 'PAGE_VIEW',
        limit: 1000,
        fields: 'id,visitor_id,event_type,page_url,country_code,raw',
      },
    })
    const expected = byTime().filter(
      (e) => e.user_id === sample?.user_id && e.event_type === '[Amplitude] Page Viewed',
    )
    expect(res.body.map((e) => e.id)).toEqual(expected.map(eventId))
    const first = res.body[0] as Rec
    expect(first).toMatchObject({ visitor_id: sample?.user_id, event_type: 'PAGE_VIEW' })
    expect(String(first.page_url)).toMatch(/^https:\/\/acme\.example/)
    expect((first.raw as Rec).app).toBe(DEFAULT_APP_ID)
    const session = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: start, session_id: String(sample?.session_id), limit: 1000 },
    })
    expect(session.body.map((e) => e.id)).toEqual(
      byTime()
        .filter((e) => e.session_id === sample?.session_id)
        .map(eventId),
    )
  })

  it('refuses what the export cannot do', async () => {
    expect((await h.api('GET', `${base()}/event`, { query: { start_gte: '2020-01-01' } })).status).toBe(400)
    expect((await h.api('GET', `${base()}/event/x`)).status).toBe(501)
    expect((await h.api('GET', `${base()}/session`)).status).toBe(501)
    expect((await h.api('GET', `${base()}/property`)).status).toBe(501)
  })

  it('sends an event through HTTP V2 with our id as insert_id, retried safely on 429, then exports it', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '^/2/httpapi$' })
    const before = emu.state.events.length
    const created = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'Signed Up', visitor_id: 'u1', page_url: 'https://acme.example/signup' },
    })
    expect(created.status).toBe(200)
    const id = created.body.id as string
    const sent = at('/2/httpapi').map((r) => r.body as Rec)
    expect(sent).toHaveLength(2)
    expect(sent[0]).toMatchObject({ api_key: DEFAULT_API_KEY, options: { min_id_length: 1 } })
    expect((sent[0]!.events as Rec[])[0]).toMatchObject({
      user_id: 'u1',
      event_type: 'Signed Up',
      insert_id: id,
    })
    expect(sent[1]).toEqual(sent[0])
    expect(emu.state.events.length).toBe(before + 1)
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { updated_gte: new Date(Date.now() - 60_000).toISOString(), visitor_id: 'u1' },
    })
    expect(listed.body.map((e) => e.id)).toEqual([id])
    // Without visitor_id the event gets an anonymous user id, sent to Amplitude and handed back.
    const anonymous = await h.api<Rec>('POST', `${base()}/event`, { body: { name: 'x' } })
    expect(anonymous.status).toBe(200)
    expect(anonymous.body.visitor_id).toMatch(/^anon-[0-9a-f-]{36}$/)
    const last = at('/2/httpapi').at(-1)?.body as Rec
    expect((last.events as Rec[])[0]?.user_id).toBe(anonymous.body.visitor_id)
  })

  it('finds visitors with User Search, fetching activity only for slow fields', async () => {
    const user = [...emu.state.users.values()].find((u) => u.user_id === 'user_0002')
    const quick = await h.api<Rec[]>('GET', `${base()}/visitor`, { query: { query: 'user_000' } })
    expect(quick.body.map((v) => v.id)).toContain('user_0002')
    expect(at('/api/2/useractivity')).toHaveLength(0)
    const got = await h.api<Rec>('GET', `${base()}/visitor/user_0002`, {
      query: { fields: 'id,email,total_events' },
    })
    const events = emu.state.events.filter((e) => e.amplitude_id === user?.amplitude_id)
    expect(got.body).toEqual({ id: 'user_0002', email: 'user_0002@example.com', total_events: events.length })
    expect(at('/api/2/useractivity')[0]?.query).toMatchObject({ user: String(user?.amplitude_id) })
    expect((await h.api('GET', `${base()}/visitor/nobody-here`)).status).toBe(404)
    expect((await h.api('GET', `${base()}/visitor`)).status).toBe(400)
  })

  it('identifies, updates and deletes a visitor', async () => {
    // email is a slow field here (User Activity): a write answers it when `fields` names it.
    const created = await h.api<Rec>('POST', `${base()}/visitor`, {
      query: { fields: 'id,email' },
      body: { email: 'new@example.com', raw: { user_id: 'new_user_1' } },
    })
    expect(created.body).toMatchObject({ id: 'new_user_1', email: 'new@example.com' })
    const form = at('/identify')[0]?.body as Rec
    expect(form.api_key).toBe(DEFAULT_API_KEY)
    expect(JSON.parse(String(form.identification))).toEqual([
      { user_id: 'new_user_1', user_properties: { $set: { email: 'new@example.com' } } },
    ])
    const patched = await h.api<Rec>('PATCH', `${base()}/visitor/new_user_1`, { body: { name: 'New' } })
    expect(patched.status).toBe(200)
    const read = await h.api<Rec>('GET', `${base()}/visitor/new_user_1`, {
      query: { fields: 'id,email,name' },
    })
    expect(read.body).toEqual({ id: 'new_user_1', email: 'new@example.com', name: 'New' })
    expect((await h.api('DELETE', `${base()}/visitor/new_user_1`)).status).toBe(200)
    expect(at('/api/2/deletions/users')[0]?.body).toMatchObject({ requester: 'unigate' })
    expect((await h.api('GET', `${base()}/visitor/new_user_1`)).status).toBe(404)
  })

  it('reports users and events by day, and users by country from range totals', async () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    const start = day(until - 6 * DAY_MS)
    const end = day(until - DAY_MS)
    const res = await h.api<Rec[]>('GET', `${base()}/report`, { query: { start_gte: start, end_lt: end } })
    expect(res.status).toBe(200)
    const metrics = res.body[0]?.metrics as Rec[]
    const from = Date.parse(`${start}T00:00:00Z`)
    const to = Date.parse(`${end}T00:00:00Z`)
    const inWindow = emu.state.events.filter((e) => e.eventTimeMs >= from && e.eventTimeMs < to)
    const sum = (type: string) =>
      metrics.filter((m) => m.type === type).reduce((a, m) => a + Number(m.value), 0)
    expect(sum('EVENTS')).toBe(inWindow.length)
    expect(metrics.filter((m) => m.type === 'USERS').every((m) => m.dimension === 'DATE')).toBe(true)
    const countries = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: start, end_lt: end, type: 'USERS', dimension: 'COUNTRY' },
    })
    const rows = countries.body[0]?.metrics as Rec[]
    for (const row of rows) {
      const users = new Set(
        inWindow.filter((e) => e.country === row.dimension_value).map((e) => e.amplitude_id),
      )
      expect(row.value).toBe(users.size)
    }
    expect(at('/api/2/events/segmentation').at(-1)?.query).toMatchObject({ g: 'country', m: 'uniques' })
    expect((await h.api('GET', `${base()}/report`, { query: { type: 'BOUNCE_RATE' } })).status).toBe(501)
    expect(
      (await h.api('GET', `${base()}/report`, { query: { type: 'NEW_USERS', dimension: 'COUNTRY' } })).status,
    ).toBe(501)
    expect(
      (await h.api('GET', `${base()}/report`, { query: { start_gte: `${start}T05:00:00Z` } })).status,
    ).toBe(400)
  })

  it('passes on a lasting 429 as 429 and a 500 as 502 after retries', async () => {
    emu.fault({ status: 429, times: 10, pathPattern: '^/api/2/usersearch$' })
    expect((await h.api('GET', `${base()}/visitor/user_0002`)).status).toBe(429)
    expect(at('/api/2/usersearch')).toHaveLength(3)
    emu.clearFaults()
    emu.fault({ status: 500, times: 10, pathPattern: '^/api/2/export$' })
    const res = await h.api('GET', `${base()}/event`, {
      query: { start_gte: new Date(until - DAY_MS).toISOString() },
    })
    expect(res.status).toBe(502)
    expect(at('/api/2/export')).toHaveLength(3)
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'amplitude')
    expect(Object.keys(support).sort()).toEqual(['analytics_event', 'analytics_report', 'analytics_visitor'])
    const listQuery: Record<string, Record<string, string>> = {
      analytics_event: { start_gte: new Date(until - DAY_MS).toISOString() },
      analytics_visitor: { query: 'user_' },
    }
    const bodies: Record<string, Rec> = {
      analytics_event: { name: 'Matrix', visitor_id: 'u1' },
      analytics_visitor: { email: 'm@example.com' },
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => listQuery[object],
      body: ({ object, method }) => (method === 'create' ? bodies[object] : { name: 'Renamed' }),
      id: ({ method }) => (method === 'remove' ? 'user_0004' : 'user_0003'),
    })
  })
})

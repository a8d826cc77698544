import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_APP_ID,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
  writeZip,
} from '../emulators/amplitude/index.js'
import type { Config } from '../src/config.js'
import { EXPORT_UNPACKED_CAP_BYTES } from '../src/integrations/amplitude/export-archive.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** The emulated project counts Dashboard REST days in Berlin. */
const ZONE = 'Europe/Berlin'
const zoneDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(ms))
/** The instant a day starts in ZONE (22:00 or 23:00 UTC the day before). */
const zoneMidnight = (day: string) => {
  for (const h of [1, 2]) {
    const t = Date.parse(`${day}T00:00:00Z`) - h * HOUR_MS
    if (zoneDay(t) === day && zoneDay(t - 1) !== day) return t
  }
  throw new Error(`no midnight found for ${day}`)
}

describe('Amplitude through Unigate', () => {
  let h: Harness
  let emu: AmplitudeEmulator
  let conn: string
  const base = () => `/analytics/${conn}`
  const at = (path: string) => emu.requests().filter((r) => r.path === path)
  // Seeded data spans the 30 days before this; the export is read up to now, so keep windows recent-ish.
  // Amplitude exports an upload hour 3 hours after it starts: seeded data ends well before that.
  const until = Date.now() - 6 * HOUR_MS

  useEmulatorSuite({
    start: () =>
      startAmplitudeEmulator({
        seed: 9,
        users: 30,
        events: 600,
        until: new Date(until).toISOString(),
        timezone: ZONE,
      }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'amplitude',
        auth: {
          api_key: DEFAULT_API_KEY,
          secret_key: DEFAULT_SECRET_KEY,
          region: 'eu',
          api_url: emu.url,
          project_timezone: ZONE,
        },
      })
    },
  })

  const eventId = (e: { $insert_id?: string; uuid: string }) => e.$insert_id ?? e.uuid
  const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13).replace(/-/g, '')
  const hourMs = (h: string) =>
    Date.UTC(Number(h.slice(0, 4)), Number(h.slice(4, 6)) - 1, Number(h.slice(6, 8)), Number(h.slice(9, 11)))
  const byTime = () =>
    [...emu.state.events].sort(
      (a, b) => a.eventTimeMs - b.eventTimeMs || eventId(a).localeCompare(eventId(b)),
    )

  /**
   * The visitor list an emulator's export can serve now, worked out from its events: upload hours from
   * 00:00 UTC 30 days ago, 3 hours after each hour starts; users in the order of their first upload hour.
   */
  const firstSeenVisitorIds = (emulator: AmplitudeEmulator) => {
    const windowStart = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS
    const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
    const exported = emulator.state.events.filter(
      (e) => e.uploadTimeMs >= windowStart && hourOf(e.uploadTimeMs) + 3 * HOUR_MS <= Date.now(),
    )
    const first = new Map<number, { hour: number; id: string }>()
    for (const e of [...exported].sort((a, b) => a.uploadTimeMs - b.uploadTimeMs)) {
      if (first.has(e.amplitude_id)) continue
      first.set(e.amplitude_id, { hour: hourOf(e.uploadTimeMs), id: e.user_id ?? `device:${e.device_id}` })
    }
    return [...first.values()].sort((a, b) => a.hour - b.hour || a.id.localeCompare(b.id)).map((v) => v.id)
  }

  it('refuses keys Amplitude rejects, and a time zone that is not one', async () => {
    const res = await h.api('POST', '/unified/connection', {
      body: {
        integration_type: 'amplitude',
        auth: { api_key: DEFAULT_API_KEY, secret_key: 'wrong', api_url: emu.url },
      },
    })
    expect(res.status).toBe(400)
    const zone = await h.api<Rec>('POST', '/unified/connection', {
      body: {
        integration_type: 'amplitude',
        auth: {
          api_key: DEFAULT_API_KEY,
          secret_key: DEFAULT_SECRET_KEY,
          api_url: emu.url,
          project_timezone: 'Mars/Base',
        },
      },
    })
    expect(zone.status).toBe(400)
    expect(String(zone.body.message)).toContain('project_timezone')
  })

  it('refuses a raw parameter Unigate sets on an Amplitude call instead of letting it silently lose', async () => {
    const before = emu.requests().length
    for (const [object, raw, query, why] of [
      ['event', 'start=20240101T00', {}, 'use start_gte and end_lt'],
      ['event', 'end=20240101T00', {}, 'use start_gte and end_lt'],
      ['report', 'g=country', { dimension: 'COUNTRY' }, 'use dimension'],
      ['report', 'i=7', { dimension: 'DATE' }, 'use dimension'],
      ['report', 'limit=5', { dimension: 'COUNTRY' }, 'Unigate asks for every value of a breakdown'],
      ['report', 'start=20240101', {}, 'use start_gte and end_lt'],
      ['visitor', 'user=someone', { query: 'other' }, 'use query or the visitor id'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/${object}`, { query: { raw, ...query } })
      expect(res.status, `${object} ${raw}`).toBe(400)
      expect(String(res.body.message)).toBe(
        `raw: '${raw.split('=')[0]}' is set by Unigate for Amplitude; ${why}`,
      )
    }
    expect(emu.requests()).toHaveLength(before)
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
    // Read a day of upload hours per request, from start less an hour to end plus the lateness allowed.
    const calls = at('/api/2/export').map((r): [string, string] => [
      String(r.query.start),
      String(r.query.end),
    ])
    expect(calls[0]?.[0]).toBe(hour(start - HOUR_MS))
    expect(calls.at(-1)?.[1]).toBe(hour(end + 7 * DAY_MS))
    expect(calls.length).toBeGreaterThan(5)
    for (const [a, b] of calls.slice(0, -1)) expect(hourMs(b) - hourMs(a)).toBe(23 * HOUR_MS)
    for (let i = 1; i < calls.length; i++)
      expect(hourMs(calls[i]![0]!)).toBe(hourMs(calls[i - 1]![1]!) + HOUR_MS)
  })

  it('stops reading upload days once later uploads cannot change the page', async () => {
    const start = until - 25 * DAY_MS
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: new Date(start).toISOString(), limit: 5 },
    })
    expect(res.body.map((e) => e.id)).toEqual(
      byTime()
        .filter((e) => e.eventTimeMs >= start)
        .slice(0, 5)
        .map(eventId),
    )
    // Five events are settled after the 7 days of lateness plus the day they fall in: not 25 days of reads.
    const calls = at('/api/2/export')
    expect(calls.length).toBeLessThanOrEqual(10)
    for (const r of calls) {
      expect(hourMs(String(r.query.end)) - hourMs(String(r.query.start))).toBeLessThanOrEqual(23 * HOUR_MS)
    }
  })

  it('halves the export range while Amplitude answers that it is too large', async () => {
    emu.fault({ status: 400, times: 1, pathPattern: '^/api/2/export$' })
    const start = until - 20 * DAY_MS
    const end = until - 19 * DAY_MS
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: new Date(start).toISOString(), end_lt: new Date(end).toISOString(), limit: 1000 },
    })
    expect(res.status).toBe(200)
    expect(res.body.map((e) => e.id)).toEqual(
      byTime()
        .filter((e) => e.eventTimeMs >= start && e.eventTimeMs < end)
        .map(eventId),
    )
    const [refused, retried] = at('/api/2/export').map(
      (r) => hourMs(String(r.query.end)) - hourMs(String(r.query.start)),
    )
    expect([refused, retried]).toEqual([23 * HOUR_MS, 11 * HOUR_MS])
  })

  it('answers 502 naming the cap when even one hour of the export unpacks past it', async () => {
    // A few hundred kilobytes that unpack to more than the cap: each range asked is refused as too large.
    const bomb = writeZip([
      {
        name: '1/1.json.gz',
        data: gzipSync(Buffer.alloc(EXPORT_UNPACKED_CAP_BYTES + 1, 0x20), { level: 9 }),
      },
    ])
    const answerBomb = {
      status: 200,
      times: 1,
      pathPattern: '^/api/2/export$',
      rawBody: bomb,
      headers: { 'content-type': 'application/zip' },
    }
    // The day's archive unpacks past the cap; the next ranges are refused as too large by Amplitude itself
    // (each unpacking 256 MiB costs seconds of CPU); the one hour left unpacks past the cap again.
    emu.fault(answerBomb)
    emu.fault({ status: 400, times: 3, pathPattern: '^/api/2/export$' })
    emu.fault(answerBomb)
    const start = until - 20 * DAY_MS
    const res = await h.api<Rec>('GET', `${base()}/event`, {
      query: { start_gte: new Date(start).toISOString(), end_lt: new Date(start + DAY_MS).toISOString() },
    })
    expect(res.status).toBe(502)
    expect(res.body.message).toBe(
      `Amplitude answered list analytics_event, but its export archive unpacks to more than ${EXPORT_UNPACKED_CAP_BYTES} bytes, the cap on an unpacked export`,
    )
    // Read in smaller pieces down to one hour before giving up, then nothing more.
    const spans = at('/api/2/export').map((r) => hourMs(String(r.query.end)) - hourMs(String(r.query.start)))
    expect(spans).toEqual([23, 11, 5, 2, 0].map((h) => h * HOUR_MS))
    emu.clearFaults()
  })

  it('lists the earliest page of an archive of 150,000 events, holding a page, not the archive', async () => {
    // Far before the seeded data: every other export hour answers 404 (no data).
    const start = Math.floor((until - 200 * DAY_MS) / HOUR_MS) * HOUR_MS
    const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000')
    const lines: string[] = []
    for (let i = 0; i < 150_000; i++) {
      const t = stamp(start + (i % 3600) * 1000)
      lines.push(
        JSON.stringify({
          uuid: `big-${String(i).padStart(6, '0')}`,
          event_type: 'x',
          event_time: t,
          server_upload_time: t,
          user_id: `u${i % 50}`,
          amplitude_id: i % 50,
        }),
      )
    }
    emu.fault({
      status: 200,
      times: 1,
      pathPattern: '^/api/2/export$',
      rawBody: writeZip([{ name: '1/1.json.gz', data: gzipSync(`${lines.join('\n')}\n`) }]),
      headers: { 'content-type': 'application/zip' },
    })
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(start).toISOString(),
        end_lt: new Date(start + HOUR_MS).toISOString(),
        limit: '5',
        fields: 'id,created_at',
      },
    })
    emu.clearFaults()
    // Before, every event of the archive was kept and spread into one push: past about 120,000 the stack
    // overflowed, and the list answered 502.
    expect(res.status).toBe(200)
    expect(res.body.map((e) => e.id)).toEqual([
      'big-000000',
      'big-003600',
      'big-007200',
      'big-010800',
      'big-014400',
    ])
    expect(res.body.every((e) => e.created_at === new Date(start).toISOString())).toBe(true)
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
    // More than the 365 days Amplitude exports at once: the 400 names the earliest start_gte that fits.
    const long = await h.api<Rec>('GET', `${base()}/event`, { query: { start_gte: '2020-01-01' } })
    expect(long.status).toBe(400)
    expect(long.body.message).toMatch(
      /^start_gte: Amplitude exports at most 365 days at once, and this list reads the uploads from start_gte to now; give a start_gte at or after \d{4}-\d\d-\d\dT\d\d:00:00\.000Z, or an end_lt$/,
    )
    expect(at('/api/2/export')).toEqual([])
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
    // The key is in the body; the secret key's Basic header never goes to the ingestion host.
    expect(at('/2/httpapi').map((r) => r.headers.authorization)).toEqual([undefined, undefined])
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
    const recent = { updated_gte: new Date(Date.now() - 60_000).toISOString(), visitor_id: 'u1' }
    // Amplitude exports an upload hour about 2 hours after it ends: not yet listed.
    expect((await h.api<Rec[]>('GET', `${base()}/event`, { query: recent })).body).toEqual([])
    const stored = emu.state.events.find((e) => e.$insert_id === id)!
    stored.uploadTimeMs -= 3 * HOUR_MS
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { updated_gte: new Date(stored.uploadTimeMs - 60_000).toISOString(), visitor_id: 'u1' },
    })
    expect(listed.body.map((e) => e.id)).toEqual([id])
    // Without visitor_id the event gets an anonymous user id, sent to Amplitude and handed back.
    const anonymous = await h.api<Rec>('POST', `${base()}/event`, { body: { name: 'x' } })
    expect(anonymous.status).toBe(200)
    expect(anonymous.body.visitor_id).toMatch(/^anon-[0-9a-f-]{36}$/)
    const last = at('/2/httpapi').at(-1)?.body as Rec
    expect((last.events as Rec[])[0]?.user_id).toBe(anonymous.body.visitor_id)
  })

  it('refuses a string Amplitude would cut to 1024 characters, naming it, and sends nothing', async () => {
    const long = 'é'.repeat(1025)
    const event = await h.api<{ message: string }>('POST', `${base()}/event`, {
      body: { name: 'Long', visitor_id: 'u1', page_title: long },
    })
    expect(event.status).toBe(400)
    expect(event.body.message).toMatch(
      /^page_title: Amplitude keeps at most 1024 characters .*\(1025 characters\)/,
    )
    const visitor = await h.api<{ message: string }>('POST', `${base()}/visitor`, {
      body: { name: long, raw: { user_id: 'long_user_1' } },
    })
    expect(visitor.status).toBe(400)
    expect(visitor.body.message).toMatch(/^name: Amplitude keeps at most 1024 characters/)
    expect([...at('/2/httpapi'), ...at('/identify')]).toEqual([])
    // 1024 characters is kept whole, so it is sent.
    const fits = await h.api('POST', `${base()}/event`, {
      body: { name: 'Long', visitor_id: 'u1', page_title: long.slice(1) },
    })
    expect(fits.status).toBe(200)
  })

  it('dates an event by when the export began serving it, so polling by updated_gte misses none', async () => {
    // A poll that ran a minute after this upload could not see it yet (exported ~3 hours later): the next
    // poll, reading updated_gte = that poll's start, must return it.
    const e = byTime().find((x) => x.eventTimeMs > until - 10 * DAY_MS)!
    const previousPoll = e.uploadTimeMs + 60_000
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { updated_gte: new Date(previousPoll).toISOString(), limit: 1000, fields: 'id,updated_at' },
    })
    const found = res.body.find((x) => x.id === eventId(e))
    expect(found).toBeDefined()
    expect(Date.parse(String(found?.updated_at))).toBe(
      Math.floor(e.uploadTimeMs / HOUR_MS) * HOUR_MS + 3 * HOUR_MS,
    )
  })

  it('sends revenue as HTTP V2 fields and reads it back from the $revenue and $currency properties', async () => {
    const created = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'Order Completed', visitor_id: 'buyer-7', value: 42.5, currency: 'EUR' },
    })
    const id = created.body.id as string
    expect(((at('/2/httpapi').at(-1)!.body as Rec).events as Rec[])[0]).toMatchObject({
      revenue: 42.5,
      currency: 'EUR',
    })
    const stored = emu.state.events.find((e) => e.$insert_id === id)!
    stored.uploadTimeMs -= 3 * HOUR_MS
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { updated_gte: new Date(stored.uploadTimeMs - 60_000).toISOString(), visitor_id: 'buyer-7' },
    })
    expect(listed.body).toHaveLength(1)
    expect(listed.body[0]).toMatchObject({ id, value: 42.5, currency: 'EUR', event_type: 'PURCHASE' })
    const seeded = byTime().find((e) => e.event_type === 'purchase')!
    const purchases = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(seeded.eventTimeMs).toISOString(),
        end_lt: new Date(seeded.eventTimeMs + 1).toISOString(),
      },
    })
    expect(purchases.body.find((e) => e.id === eventId(seeded))).toMatchObject({
      value: seeded.event_properties.$revenue,
      currency: 'EUR',
      event_type: 'PURCHASE',
    })
  })

  it('names an anonymous visitor device:<device id>, and that id fetches, updates and filters it', async () => {
    const anon = byTime().find((e) => e.user_id === null && e.eventTimeMs > until - 20 * DAY_MS)!
    const events = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(anon.eventTimeMs).toISOString(),
        end_lt: new Date(anon.eventTimeMs + 1).toISOString(),
      },
    })
    const visitorId = `device:${anon.device_id}`
    expect(events.body.find((e) => e.id === eventId(anon))?.visitor_id).toBe(visitorId)
    const got = await h.api<Rec>('GET', `${base()}/visitor/${visitorId}`, {
      query: { fields: 'id,total_events' },
    })
    expect(got.status).toBe(200)
    expect(got.body).toEqual({
      id: visitorId,
      total_events: emu.state.events.filter((e) => e.device_id === anon.device_id).length,
    })
    const patched = await h.api<Rec>('PATCH', `${base()}/visitor/${visitorId}`, { body: { name: 'Anon' } })
    expect(patched.status).toBe(200)
    expect(JSON.parse(String((at('/identify').at(-1)!.body as Rec).identification))).toEqual([
      { device_id: anon.device_id, user_properties: { $set: { name: 'Anon' } } },
    ])
    const mine = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: new Date(until - 31 * DAY_MS).toISOString(), visitor_id: visitorId, limit: 1000 },
    })
    expect(mine.body.map((e) => e.id)).toEqual(
      byTime()
        .filter((e) => e.device_id === anon.device_id)
        .map(eventId),
    )
    expect((await h.api('GET', `${base()}/visitor/device:no-such-device`)).status).toBe(404)
  })

  it('lists an anonymous visitor as device:<id>, and updates it by its Amplitude ID through its device, not a new user', async () => {
    const anon = [...emu.state.users.values()].find((u) => u.user_id === null && !u.deleted)!
    const found = await h.api<Rec[]>('GET', `${base()}/visitor`, { query: { query: anon.device_id } })
    // Listed as its events name it; its Amplitude ID names it too.
    expect(found.body.map((v) => v.id)).toEqual([`device:${anon.device_id}`])
    const id = String(anon.amplitude_id)
    const users = emu.state.users.size
    const patched = await h.api<Rec>('PATCH', `${base()}/visitor/${id}`, {
      body: { name: 'By Amplitude ID' },
    })
    expect(patched.status).toBe(200)
    expect(JSON.parse(String((at('/identify').at(-1)!.body as Rec).identification))).toEqual([
      { device_id: anon.device_id, user_properties: { $set: { name: 'By Amplitude ID' } } },
    ])
    // Identify with user_id set to the Amplitude ID would have made a new user holding the change.
    expect(emu.state.users.size).toBe(users)
    expect(anon.properties).toMatchObject({ name: 'By Amplitude ID' })
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
    // last_used is only a day: the last sighting is the newest event User Activity answers.
    const seen = await h.api<Rec>('GET', `${base()}/visitor/user_0002`, {
      query: { fields: 'id,last_seen_at' },
    })
    expect(seen.body).toEqual({
      id: 'user_0002',
      last_seen_at: new Date(Math.max(...events.map((e) => e.eventTimeMs))).toISOString(),
    })
    expect(at('/api/2/useractivity')[0]?.query).toMatchObject({ user: String(user?.amplitude_id) })
    expect((await h.api('GET', `${base()}/visitor/nobody-here`)).status).toBe(404)
  })

  it('lists the visitors the export shows in the last 30 days without a query, in the order they first appear', async () => {
    const windowStart = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS
    const expected = firstSeenVisitorIds(emu)
    expect(expected.length).toBeGreaterThan(10)
    expect(expected.some((id) => id.startsWith('device:'))).toBe(true)

    const all = await h.api<Rec[]>('GET', `${base()}/visitor`, { query: { limit: 1000 } })
    expect(all.status, all.text).toBe(200)
    expect(all.body.map((v) => v.id)).toEqual(expected)
    // Ids only: no User Activity call, and each listed id gets its visitor.
    expect(at('/api/2/useractivity')).toHaveLength(0)
    expect(at('/api/2/usersearch')).toHaveLength(0)
    expect(at('/api/2/export')[0]?.query).toMatchObject({ start: hour(windowStart) })
    const anon = expected.find((id) => id.startsWith('device:'))!
    expect((await h.api<Rec>('GET', `${base()}/visitor/${anon}`)).body.id).toBe(anon)

    // A page is a slice of the whole list, and the first page stops reading once it is known.
    const before = at('/api/2/export').length
    const page = await h.api<Rec[]>('GET', `${base()}/visitor`, { query: { limit: 3, offset: 2 } })
    expect(page.body.map((v) => v.id)).toEqual(expected.slice(2, 5))
    expect(at('/api/2/export').length - before).toBeLessThan(before)

    // Slow fields cost one User Activity call per listed visitor.
    const activityBefore = at('/api/2/useractivity').length
    const detailed = await h.api<Rec[]>('GET', `${base()}/visitor`, {
      query: { limit: 2, fields: 'id,email' },
    })
    expect(detailed.body.map((v) => v.id)).toEqual(expected.slice(0, 2))
    expect(at('/api/2/useractivity').length - activityBefore).toBe(2)
  })

  it('answers raw.<name> from the raw that fields=raw answers, on lists with and without a query and on a get', async () => {
    const reads: [string, Record<string, string>][] = [
      [`${base()}/visitor`, { limit: '2' }],
      [`${base()}/visitor`, { limit: '2', query: 'user_000' }],
      [`${base()}/visitor/user_0002`, {}],
    ]
    for (const [path, query] of reads) {
      const whole = await h.api<Rec | Rec[]>('GET', path, { query: { ...query, fields: 'id,raw' } })
      const picked = await h.api<Rec | Rec[]>('GET', path, {
        query: { ...query, fields: 'id,raw.canonical_amplitude_id,raw.num_events' },
      })
      expect(picked.status, picked.text).toBe(200)
      const wholes = [whole.body].flat()
      expect(wholes.length).toBeGreaterThan(0)
      const expected = wholes.map((v) => {
        const raw = v.raw as Rec
        expect(raw.canonical_amplitude_id, path).toBeDefined()
        return {
          id: v.id,
          raw: { canonical_amplitude_id: raw.canonical_amplitude_id, num_events: raw.num_events },
        }
      })
      expect([picked.body].flat(), path).toEqual(expected)
    }
  })

  it('gathers visitors in growing ranges but never asks again for a range size Amplitude refused', async () => {
    // The same data, with an export that refuses archives past 8 kB: about two days of it here.
    const small = await startAmplitudeEmulator({
      seed: 9,
      users: 30,
      events: 600,
      until: new Date(until).toISOString(),
      timezone: ZONE,
      exportMaxBytes: 8_000,
    })
    try {
      const smallConn = await createConnection(h, {
        integration_type: 'amplitude',
        auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, region: 'eu', api_url: small.url },
      })
      const res = await h.api<Rec[]>('GET', `/analytics/${smallConn}/visitor`, { query: { limit: 1000 } })
      expect(res.status, res.text).toBe(200)
      expect(res.body.map((v) => v.id)).toEqual(firstSeenVisitorIds(small))
      const asked = small
        .requests()
        .filter((r) => r.path === '/api/2/export')
        .map((r) => ({
          start: String(r.query.start),
          span: hourMs(String(r.query.end)) - hourMs(String(r.query.start)),
        }))
      // A refused range is followed by a smaller one from the same hour; after it, no range is as large.
      const refused = asked.flatMap((r, i) => (asked[i + 1]?.start === r.start ? [{ i, span: r.span }] : []))
      expect(refused.length).toBeGreaterThan(0)
      for (const { i, span } of refused) {
        expect(asked.slice(i + 1).every((r) => r.span < span)).toBe(true)
      }
    } finally {
      await small.close()
    }
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
    expect(at('/identify')[0]?.headers.authorization).toBeUndefined()
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
    expect(at('/api/2/deletions/users')[0]?.body).toMatchObject({
      requester: 'unigate',
      ignore_invalid_id: true,
    })
    expect((await h.api('GET', `${base()}/visitor/new_user_1`)).status).toBe(404)
  })

  it('does not answer a deletion Amplitude did not schedule as done', async () => {
    const user = [...emu.state.users.values()].find((u) => u.user_id === 'user_0006')!
    // With ignore_invalid_id Amplitude answers 200 and lists a user it has no data of in `invalid_ids`,
    // scheduling nothing for it (user-privacy.md, "Response").
    emu.fault({
      status: 200,
      times: 1,
      pathPattern: '^/api/2/deletions/users$',
      body: [{ day: '2024-06-01', amplitude_ids: [], status: 'staging', invalid_ids: [user.amplitude_id] }],
    })
    const res = await h.api<Rec>('DELETE', `${base()}/visitor/user_0006`)
    expect(res.status).toBe(502)
    expect(String(res.body.message)).toContain('did not schedule the deletion of visitor user_0006')
    // A job without the user is no deletion either.
    emu.fault({
      status: 200,
      times: 1,
      pathPattern: '^/api/2/deletions/users$',
      body: [{ day: '2024-06-01', amplitude_ids: [], status: 'staging' }],
    })
    expect((await h.api('DELETE', `${base()}/visitor/user_0006`)).status).toBe(502)
    expect(user.deleted).toBe(false)
  })

  it('reports users and events by day, and users by country from range totals', async () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    const start = day(until - 6 * DAY_MS)
    const end = day(until - DAY_MS)
    const res = await h.api<Rec[]>('GET', `${base()}/report`, { query: { start_gte: start, end_lt: end } })
    expect(res.status).toBe(200)
    const metrics = res.body[0]?.metrics as Rec[]
    // Days of the project's zone: the report covers the instants Amplitude counted.
    const from = zoneMidnight(start)
    const to = zoneMidnight(end)
    expect(res.body[0]).toMatchObject({
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
    })
    expect(metrics.filter((m) => m.type === 'EVENTS').map((m) => m.value)).toEqual(
      Array.from({ length: 5 }, (_, i) => {
        const d = day(Date.parse(`${start}T00:00:00Z`) + i * DAY_MS)
        return emu.state.events.filter((e) => zoneDay(e.eventTimeMs) === d).length
      }),
    )
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
    // Without `limit` Amplitude keeps only the top 100 group-by values.
    expect(at('/api/2/events/segmentation').at(-1)?.query).toMatchObject({
      g: 'country',
      m: 'uniques',
      limit: '1000',
    })
    // Hourly segmentation covers at most 7 days: a longer window is refused, not silently cut.
    const hours = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: day(until - 10 * DAY_MS), end_lt: end, type: 'EVENTS', dimension: 'HOUR' },
    })
    expect(hours.status).toBe(400)
    expect((hours.body as unknown as Rec).message).toContain('7 days')
    // Daily segmentation covers at most 365 days: likewise refused, by date and by a group-by.
    for (const dimension of ['DATE', 'COUNTRY']) {
      const long = await h.api<Rec[]>('GET', `${base()}/report`, {
        query: { start_gte: day(until - 400 * DAY_MS), end_lt: end, type: 'EVENTS', dimension },
      })
      expect(long.status).toBe(400)
      expect((long.body as unknown as Rec).message).toContain('365 days')
    }
    // Seven days that hold the autumn clock change are 169 hours: more than Amplitude's 7 × 24 hourly buckets.
    const autumn = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: '2024-10-21', end_lt: '2024-10-28', type: 'EVENTS', dimension: 'HOUR' },
    })
    expect(autumn.status).toBe(400)
    expect((autumn.body as unknown as Rec).message).toContain('7 days')
    const twoDays = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: {
        start_gte: day(until - 3 * DAY_MS),
        end_lt: day(until - DAY_MS),
        type: 'EVENTS',
        dimension: 'HOUR',
      },
    })
    expect(twoDays.body[0]?.metrics as Rec[]).toHaveLength(48)
    expect((await h.api('GET', `${base()}/report`, { query: { type: 'BOUNCE_RATE' } })).status).toBe(501)
    // Amplitude's `os` is os_name + os_version, the browser on the web: no operating system to report by.
    const byOs = await h.api<Rec>('GET', `${base()}/report`, {
      query: { start_gte: start, end_lt: end, type: 'EVENTS', dimension: 'OS' },
    })
    expect(byOs.status).toBe(501)
    expect(String(byOs.body.message)).toContain('browser')
    // Amplitude's `device_type` is a model name ("Mac", "Apple iPhone 12"), not desktop/mobile/tablet.
    const byDevice = await h.api<Rec>('GET', `${base()}/report`, {
      query: { start_gte: start, end_lt: end, type: 'EVENTS', dimension: 'DEVICE_TYPE' },
    })
    expect(byDevice.status).toBe(501)
    expect(String(byDevice.body.message)).toContain('not desktop, mobile or tablet')
    expect(
      (await h.api('GET', `${base()}/report`, { query: { type: 'NEW_USERS', dimension: 'COUNTRY' } })).status,
    ).toBe(501)
    expect(
      (await h.api('GET', `${base()}/report`, { query: { start_gte: `${start}T05:00:00Z` } })).status,
    ).toBe(400)
  })

  it('reads a window before the year 1000 as those years, and refuses an all-time one itself, not as a 502', async () => {
    // The longest window is refused by Unigate's own 365-day rule, not answered as a failure of Amplitude.
    const all = await h.api<Rec>('GET', `${base()}/report`, {
      query: { start_gte: '0001-01-01', end_lt: '9999-12-31' },
    })
    expect(all.status).toBe(400)
    expect(String(all.body.message)).toContain('365 days')
    const early = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: '0001-01-01', end_lt: '0001-01-03', type: 'EVENTS', dimension: 'DATE' },
    })
    expect(early.status).toBe(200)
    // Berlin kept local mean time (UTC+0:53:28) then: its midnight is 23:06:32 UTC the day before.
    expect(early.body[0]).toMatchObject({
      start_at: '0000-12-31T23:06:32.000Z',
      end_at: '0001-01-02T23:06:32.000Z',
    })
    expect((early.body[0]!.metrics as Rec[]).map((m) => m.dimension_value)).toEqual([
      '0001-01-01',
      '0001-01-02',
    ])
    expect(at('/api/2/events/segmentation')[0]?.query).toMatchObject({ start: '00010101', end: '00010102' })
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

  it('watches events for created only: Amplitude never changes an exported event', async () => {
    const hook = (event: string) =>
      h.api<{ id?: string; message?: string }>('POST', '/unified/webhook', {
        body: {
          connection_id: conn,
          object_type: 'analytics_event',
          event,
          hook_url: 'http://127.0.0.1:9/hook',
          interval: 60,
        },
      })
    const updated = await hook('updated')
    expect(updated.status).toBe(400)
    expect(updated.body.message).toMatch(/never changes analytics_event.*subscribe to created/)
    const created = await hook('created')
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.id).toMatch(/^wh_/)
  })
})

/**
 * An Amplitude emulator and a Unigate harness with `config`, for the suites below that read one past day of
 * events through an export that is too much at first: the day's events in export order, and each export
 * request's width in hours.
 */
function exportSuite(config: Partial<Config>) {
  const until = Date.now() - 6 * HOUR_MS
  const hourIso = (v: string) => `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}T${v.slice(9, 11)}:00:00Z`
  const suite = {
    h: undefined as unknown as Harness,
    emu: undefined as unknown as AmplitudeEmulator,
    conn: '',
    start: until - 20 * DAY_MS,
    end: until - 19 * DAY_MS,
    /** The list of that day, as the caller sees it. */
    listDay: () =>
      suite.h.api<Rec[]>('GET', `/analytics/${suite.conn}/event`, {
        query: {
          start_gte: new Date(suite.start).toISOString(),
          end_lt: new Date(suite.end).toISOString(),
          limit: 1000,
        },
      }),
    /** The emulator's events of that day, in the order the list gives them. */
    expectedIds: () =>
      suite.emu.state.events
        .filter((e) => e.eventTimeMs >= suite.start && e.eventTimeMs < suite.end)
        .sort(
          (a, b) =>
            a.eventTimeMs - b.eventTimeMs || (a.$insert_id ?? a.uuid).localeCompare(b.$insert_id ?? b.uuid),
        )
        .map((e) => e.$insert_id ?? e.uuid),
    /** Each export request: its first upload hour and how many hours it spans. */
    exports: () =>
      suite.emu
        .requests()
        .filter((r) => r.path === '/api/2/export')
        .map((r) => ({
          start: String(r.query.start),
          hours:
            (Date.parse(hourIso(String(r.query.end))) - Date.parse(hourIso(String(r.query.start)))) /
              HOUR_MS +
            1,
        })),
  }
  beforeAll(async () => {
    suite.emu = await startAmplitudeEmulator({
      seed: 9,
      users: 30,
      events: 600,
      until: new Date(until).toISOString(),
    })
    suite.h = await startHarness('sqlite', config)
    suite.conn = await createConnection(suite.h, {
      integration_type: 'amplitude',
      auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: suite.emu.url },
    })
  })
  afterAll(async () => {
    await suite.h?.close()
    await suite.emu?.close()
  })
  return suite
}

describe('Amplitude through Unigate, with a small cap on provider answers', () => {
  /** Above the largest upload hour's archive of this seed, below a day's. */
  const CAP = 4096
  const suite = exportSuite({ outbound: { ...testConfig('sqlite').outbound, maxBodyBytes: CAP } })

  it('halves the export range while its archive is over the cap, instead of failing the list', async () => {
    const res = await suite.listDay()
    expect(res.status, res.text).toBe(200)
    const expected = suite.expectedIds()
    expect(expected.length).toBeGreaterThan(5)
    expect(res.body.map((e) => e.id)).toEqual(expected)
    const exports = suite.exports()
    // A day whose archive was over the cap was asked again from the same hour, for half as many hours.
    const halved = exports.filter(
      (r, i) => i > 0 && r.start === exports[i - 1]?.start && r.hours < (exports[i - 1]?.hours ?? 0),
    )
    expect(halved.length).toBeGreaterThan(0)
  })
})

describe("Amplitude through Unigate, when an export outlasts Unigate's provider timeout", () => {
  const TIMEOUT_MS = 1000
  const suite = exportSuite({ providerTimeoutMs: TIMEOUT_MS })

  it('asks for fewer upload hours instead of failing the list', async () => {
    // The first export answers after the timeout: a day of uploads that takes too long to arrive.
    suite.emu.fault({ delayMs: 3 * TIMEOUT_MS, times: 1, pathPattern: '^/api/2/export$' })
    const res = await suite.listDay()
    expect(res.status, res.text).toBe(200)
    expect(res.body.map((e) => e.id)).toEqual(suite.expectedIds())
    const [slow, retried] = suite.exports()
    expect([slow?.hours, retried?.hours]).toEqual([24, 12])
  })
})

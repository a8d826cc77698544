import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  type MixpanelEmulator,
  startMixpanelEmulator,
} from '../emulators/mixpanel/index.js'
import { dayIn } from '../src/integrations/zones.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import { mixpanelEmulatorAuth } from './support/mixpanel.js'

type Rec = Record<string, unknown>
const DAY_MS = 86_400_000
/** The emulated project predates 2023 and lives in Los Angeles: times stored and reported in its zone. */
const ZONE = 'America/Los_Angeles'
const zoneDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(ms))
/** The instant a day starts in ZONE (a day's midnight is 07:00 or 08:00 UTC there). */
const zoneMidnight = (day: string) => {
  for (const h of [7, 8]) {
    const t = Date.parse(`${day}T0${h}:00:00Z`)
    if (zoneDay(t) === day && zoneDay(t - 1) !== day) return t
  }
  throw new Error(`no midnight found for ${day}`)
}

describe('Mixpanel through Unigate', () => {
  let h: Harness
  let emu: MixpanelEmulator
  let conn: string
  const base = () => `/analytics/${conn}`
  const at = (path: string) => emu.requests().filter((r) => r.path === path)
  const auth = () => mixpanelEmulatorAuth(emu)
  type Ev = (typeof emu.state.events)[number]
  const byTimeThenId = (a: Ev, b: Ev) =>
    a.properties.time - b.properties.time || a.properties.$insert_id.localeCompare(b.properties.$insert_id)
  /** The seeded events of a window, in time order (the emulator's export streams them unsorted). */
  const eventsBetween = (from: number, to: number) =>
    emu.state.events.filter((e) => e.properties.time >= from && e.properties.time < to).sort(byTimeThenId)

  useEmulatorSuite({
    start: () =>
      startMixpanelEmulator({
        seed: 5,
        events: 1500,
        profiles: 60,
        engagePageSize: 25,
        timezone: ZONE,
        legacyLocalTime: true,
        // Mixpanel shows profile writes "in less than 1 minute"; a quick case keeps the suite short.
        profileLagMs: 1_500,
      }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, { integration_type: 'mixpanel', auth: auth() })
    },
  })

  it('authenticates with the service account and refuses bad credentials or an unseen project', async () => {
    expect((await h.api('GET', `${base()}/property`)).status).toBe(200)
    const basic = Buffer.from(
      `${DEFAULT_SERVICE_ACCOUNT.username}:${DEFAULT_SERVICE_ACCOUNT.secret}`,
    ).toString('base64')
    expect(at('/api/app/me')[0]?.headers.authorization).toBe(`Basic ${basic}`)
    for (const wrong of [{ secret: 'nope' }, { project_id: '999' }, { region: 'mars' }]) {
      const res = await h.api('POST', '/unified/connection', {
        body: { integration_type: 'mixpanel', auth: { ...auth(), ...wrong } },
      })
      expect(res.status).toBe(400)
    }
  })

  it('lists and gets the project as a property', async () => {
    const list = await h.api<Rec[]>('GET', `${base()}/property`)
    expect(list.body).toEqual([{ id: DEFAULT_PROJECT_ID, name: 'Acme Web', timezone: ZONE, parent_id: '11' }])
    expect((await h.api('GET', `${base()}/property/${DEFAULT_PROJECT_ID}`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/property/42`)).status).toBe(404)
  })

  it('refuses a raw parameter the export or import sets, or a raw where beside visitor_id, instead of one silently replacing the other', async () => {
    const before = emu.requests().length
    const window = { start_gte: '2024-01-01', end_lt: '2024-01-02' }
    for (const [method, raw, query, message] of [
      ['GET', 'limit=5', window, "raw: 'limit' is set by Unigate for Mixpanel"],
      [
        'GET',
        'from_date=2020-01-01',
        window,
        "raw: 'from_date' is set by Unigate for Mixpanel; use start_gte and end_lt",
      ],
      [
        'GET',
        'to_date=2020-01-01',
        window,
        "raw: 'to_date' is set by Unigate for Mixpanel; use start_gte and end_lt",
      ],
      ['GET', 'where=true', { ...window, visitor_id: 'someone' }, 'raw: where and visitor_id'],
      ['POST', 'project_id=999', {}, "raw: 'project_id' is set by Unigate for Mixpanel"],
    ] as const) {
      const res = await h.api<Rec>(method, `${base()}/event`, {
        query: { raw, ...query },
        ...(method === 'POST' ? { body: { name: 'Signed Up', visitor_id: 'someone' } } : {}),
      })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message)).toContain(message)
    }
    expect(emu.requests()).toHaveLength(before)
  })

  it('exports events of a window, trimmed to the exact times, paged', async () => {
    const first = [...emu.state.events].sort(byTimeThenId)[200]?.properties.time as number
    const from = first + 1234
    const to = from + 3 * DAY_MS + 777
    const expected = eventsBetween(from, to).map((e) => e.properties.$insert_id)
    expect(expected.length).toBeGreaterThan(60)
    const got: string[] = []
    for (let offset = 0; offset < expected.length; offset += 50) {
      const res = await h.api<Rec[]>('GET', `${base()}/event`, {
        query: {
          start_gte: new Date(from).toISOString(),
          end_lt: new Date(to).toISOString(),
          offset,
          limit: 50,
        },
      })
      expect(res.status).toBe(200)
      got.push(...res.body.map((e) => String(e.id)))
    }
    expect(got).toEqual(expected)
    const withRaw = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(from).toISOString(),
        end_lt: new Date(to).toISOString(),
        limit: 1,
        fields: 'id,raw',
      },
    })
    expect(withRaw.body[0]).toEqual({
      id: expected[0],
      raw: { event: expect.any(String), properties: expect.objectContaining({ $insert_id: expected[0] }) },
    })
    // A pre-2023 project reads export days in its own zone.
    const [call] = at('/api/2.0/export')
    expect(call?.query).toMatchObject({
      project_id: DEFAULT_PROJECT_ID,
      from_date: zoneDay(from),
      to_date: zoneDay(to),
      time_in_ms: 'true',
      limit: '100000',
    })
  })

  it("reads a pre-2023 project's local `time` back as the instant the event happened", async () => {
    const e = [...emu.state.events].sort(byTimeThenId)[700] as Ev
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(e.properties.time).toISOString(),
        end_lt: new Date(e.properties.time + 1).toISOString(),
        fields: 'id,created_at,raw',
      },
    })
    expect(res.body.map((x) => x.id)).toEqual([e.properties.$insert_id])
    expect(res.body[0]?.created_at).toBe(new Date(e.properties.time).toISOString())
    // The export itself carries the Los Angeles wall clock, hours away from the instant.
    const stored = ((res.body[0]!.raw as Rec).properties as Rec).time as number
    expect(Math.abs(stored - e.properties.time)).toBeGreaterThanOrEqual(7 * 3_600_000)
  })

  it('filters events by type and visitor at the export, and asks for more lines when trimming leaves a page short', async () => {
    const earliest = [...emu.state.events].sort(byTimeThenId)[0] as Ev
    const from = earliest.properties.time
    const to = from + 10 * DAY_MS
    const visitor = earliest.properties.distinct_id
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(from).toISOString(),
        end_lt: new Date(to).toISOString(),
        type: 'PAGE_VIEW',
        visitor_id: visitor,
      },
    })
    const expected = eventsBetween(from, to)
      .filter((e) => e.event === '$mp_web_page_view' && e.properties.distinct_id === visitor)
      .map((e) => e.properties.$insert_id)
    expect(res.body.map((e) => e.id)).toEqual(expected)
    expect(at('/api/2.0/export')[0]?.query).toMatchObject({
      event: '["$mp_web_page_view"]',
      where: `properties["distinct_id"]==${JSON.stringify(visitor)}`,
    })
    emu.clearRequests()
    // CUSTOM has no Mixpanel name: trimmed here from the window read whole, then sorted and paged.
    const custom = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        start_gte: new Date(from).toISOString(),
        end_lt: new Date(to).toISOString(),
        type: 'CUSTOM',
        limit: 30,
      },
    })
    const customExpected = eventsBetween(from, to)
      .filter((e) => !['$mp_web_page_view', '$mp_click'].includes(e.event))
      .slice(0, 30)
      .map((e) => e.properties.$insert_id)
    expect(custom.body.map((e) => e.id)).toEqual(customExpected)
    expect(at('/api/2.0/export').map((r) => r.query.limit)).toEqual(['100000'])
  })

  it('lists events of the last 30 days when no window is given (the documented default)', async () => {
    const before = at('/api/2.0/export').length
    const res = await h.api<Rec[]>('GET', `${base()}/event`)
    expect(res.status, res.text).toBe(200)
    // The window starts 30 days before today's UTC midnight; this legacy project's export reads days in its zone.
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const sent = at('/api/2.0/export').slice(before)
    expect(sent[0]?.query).toMatchObject({
      from_date: dayIn(today - 30 * 86_400_000, ZONE),
      to_date: dayIn(Date.now() - 1, ZONE),
    })
  })

  it('refuses what the export cannot do', async () => {
    expect(
      (await h.api('GET', `${base()}/event`, { query: { start_gte: '2024-05-01', session_id: 's' } })).status,
    ).toBe(501)
    expect((await h.api('GET', `${base()}/event/abc`)).status).toBe(501)
    expect((await h.api('GET', `${base()}/session`)).status).toBe(501)
  })

  it('imports an event with our id as $insert_id, and the export then has it', async () => {
    const created = await h.api<Rec>('POST', `${base()}/event`, {
      body: {
        name: 'Signed up',
        visitor_id: 'u_9999',
        page_url: 'https://acme.example/signup',
        created_at: '2024-05-20T10:00:00.000Z',
      },
    })
    expect(created.status).toBe(200)
    const id = created.body.id as string
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const [call] = at('/import')
    expect(call?.query).toMatchObject({ strict: '1', project_id: DEFAULT_PROJECT_ID })
    expect(call?.body).toEqual([
      {
        event: 'Signed up',
        properties: {
          $current_url: 'https://acme.example/signup',
          time: Date.parse('2024-05-20T10:00:00Z'),
          distinct_id: 'u_9999',
          $insert_id: id,
        },
      },
    ])
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: '2024-05-20T09:59:00Z', end_lt: '2024-05-20T10:01:00Z', visitor_id: 'u_9999' },
    })
    expect(listed.body.map((e) => e.id)).toEqual([id])
    // A send retried after Mixpanel had already taken it: the raw export answers both copies (it does not
    // de-duplicate), and the list shows the event once, as Mixpanel's own reports count it.
    emu.state.importEvent(structuredClone(emu.state.events.find((e) => e.properties.$insert_id === id)!))
    const again = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { start_gte: '2024-05-20T09:59:00Z', end_lt: '2024-05-20T10:01:00Z', visitor_id: 'u_9999' },
    })
    expect(again.body.map((e) => e.id)).toEqual([id])
    const bad = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'x', created_at: '1960-01-01T00:00:00Z' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('created_at')
    expect(at('/import')).toHaveLength(1)
  })

  it('retries an import on 429 without double counting (same $insert_id)', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '^/import$' })
    const before = emu.state.events.length
    const res = await h.api<Rec>('POST', `${base()}/event`, { body: { name: 'Retry me', visitor_id: 'u_1' } })
    expect(res.status).toBe(200)
    const ids = at('/import').map((r) => ((r.body as Rec[])[0]!.properties as Rec).$insert_id)
    expect(ids).toHaveLength(2)
    expect(ids[0]).toBe(ids[1])
    expect(emu.state.events.length).toBe(before + 1)
  })

  it('pages visitors with session_id and remembers it, so page N costs one call', async () => {
    const all = [...emu.state.profiles.values()].map((p) => p.$distinct_id).sort()
    const page = async (offset: number, limit: number) =>
      (await h.api<Rec[]>('GET', `${base()}/visitor`, { query: { offset, limit } })).body.map((v) => v.id)
    expect(await page(0, 20)).toEqual(all.slice(0, 20))
    emu.clearRequests()
    expect(await page(50, 5)).toEqual(all.slice(50, 55))
    const calls = at('/api/query/engage')
    expect(calls).toHaveLength(1)
    expect(calls[0]?.body).toMatchObject({ page: '2' })
    expect(typeof (calls[0]!.body as Rec).session_id).toBe('string')
    emu.clearRequests()
    expect(await page(20, 10)).toEqual(all.slice(20, 30))
    expect(at('/api/query/engage').map((r) => (r.body as Rec).page)).toEqual(['0', '1'])
  })

  it('finds visitors by the first or last name their name is made of, as other visitor lists search names', async () => {
    // Profiles set with Mixpanel's reserved $first_name and $last_name, and no $name, show those as `name`.
    const someone = [...emu.state.profiles.values()].find((p) => p.$properties.$name === undefined)
    const last = String(someone?.$properties.$last_name)
    const first = String(someone?.$properties.$first_name)
    for (const query of [last, first]) {
      const res = await h.api<Rec[]>('GET', `${base()}/visitor`, {
        query: { query, fields: 'id,name', limit: 1000 },
      })
      expect(res.status).toBe(200)
      expect(res.body).toContainEqual({ id: someone?.$distinct_id, name: `${first} ${last}` })
    }
  })

  it('finds visitors by the whole name they show, made of their first and last names', async () => {
    // `name` is "$first_name $last_name" when $name is not set: a query for that name, or any part of it
    // across the space, finds the visitor as a query for the first or the last name alone does.
    const someone = [...emu.state.profiles.values()].find(
      (p) => p.$properties.$name === undefined && p.$properties.$first_name && p.$properties.$last_name,
    )
    const first = String(someone?.$properties.$first_name)
    const last = String(someone?.$properties.$last_name)
    for (const query of [`${first} ${last}`, `${first.slice(-1)} ${last.slice(0, 1)}`]) {
      const res = await h.api<Rec[]>('GET', `${base()}/visitor`, {
        query: { query, fields: 'id,name', limit: 1000 },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toContainEqual({ id: someone?.$distinct_id, name: `${first} ${last}` })
      for (const v of res.body) expect(`${v.name ?? ''}`).toContain(query)
    }
  })

  it('sends a raw where to engage, never erasing it with an undefined one', async () => {
    // `raw` is "added to the provider request" (spec 4.1): without `query` the unified where was undefined
    // and erased the raw one, so Mixpanel answered every profile.
    const profiles = [...emu.state.profiles.values()]
    const someone = profiles[3]
    const email = String(someone?.$properties.$email)
    const where = `properties["$email"] == ${JSON.stringify(email)}`
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `${base()}/visitor`, {
      query: { raw: `where=${where}`, fields: 'id' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([{ id: someone?.$distinct_id }])
    expect((at('/api/query/engage')[0]?.body as Rec | undefined)?.where).toBe(where)
    const both = await h.api<Rec>('GET', `${base()}/visitor`, {
      query: { raw: `where=${where}`, query: 'x' },
    })
    expect(both.status).toBe(400)
    expect(String(both.body.message)).toContain('where')
    const refused = await h.api<Rec>('GET', `${base()}/visitor`, { query: { raw: 'page=3' } })
    expect(refused.status).toBe(400)
  })

  it('searches, gets, creates, updates and removes a visitor profile', async () => {
    const someone = [...emu.state.profiles.values()][3]
    const email = String(someone?.$properties.$email)
    const found = await h.api<Rec[]>('GET', `${base()}/visitor`, {
      query: { query: email, fields: 'id,email' },
    })
    expect(found.body).toEqual([{ id: someone?.$distinct_id, email }])
    // `$last_seen` is when the profile was last updated ("Updated at"), not when the user was last active.
    const dated = await h.api<Rec>('GET', `${base()}/visitor/${someone?.$distinct_id}`, {
      query: { fields: 'id,updated_at,last_seen_at,first_seen_at' },
    })
    // First Seen is Mixpanel's `$mp_first_event_time`, not the `$created` a sender may set.
    const firstEvent = Math.min(
      ...emu.state.events
        .filter((e) => e.properties.distinct_id === someone?.$distinct_id)
        .map((e) => e.properties.time),
    )
    expect(dated.body).toEqual({
      id: someone?.$distinct_id,
      updated_at: new Date(`${String(someone?.$properties.$last_seen)}Z`).toISOString(),
      first_seen_at: new Date(Math.floor(firstEvent / 1000) * 1000).toISOString(),
    })
    const created = await h.api<Rec>('POST', `${base()}/visitor`, {
      body: { email: 'new@example.com', name: 'New Person', metadata: { plan: { value: 'pro' } } },
    })
    expect(created.status).toBe(200)
    const id = created.body.id as string
    // The write answers what was sent, once Mixpanel shows it: it applies profile updates asynchronously.
    expect(created.body).toMatchObject({ id, email: 'new@example.com', name: 'New Person' })
    const [write] = at('/engage')
    // The project token in the body authenticates it: the service account's header stays home.
    expect(write?.headers.authorization).toBeUndefined()
    // ip=0: without it Mixpanel overwrites the profile's location with Unigate's server's.
    expect(write?.query).toMatchObject({ verbose: '1', ip: '0' })
    expect(write?.body).toEqual([
      {
        $token: DEFAULT_PROJECT_TOKEN,
        $distinct_id: id,
        $set: { plan: 'pro', $email: 'new@example.com', $name: 'New Person' },
      },
    ])
    // Read back by distinct id, a few times at most (each read is a Query API query).
    const probes = at('/api/query/engage').filter((r) => (r.body as Rec).distinct_id === id)
    expect(probes.length).toBeGreaterThan(0)
    expect(probes.length).toBeLessThanOrEqual(6)
    expect((await h.api<Rec>('GET', `${base()}/visitor/${id}`)).body).toMatchObject({
      id,
      email: 'new@example.com',
    })
    const patched = await h.api<Rec>('PATCH', `${base()}/visitor/${id}`, { body: { city: 'Lyon' } })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ id, city: 'Lyon' })
    expect(patched.body.email).toBeUndefined()
    const read = await h.api<Rec>('GET', `${base()}/visitor/${id}`)
    expect(read.body).toMatchObject({ id, email: 'new@example.com', city: 'Lyon' })
    expect(read.body.country_code).toBeUndefined()
    expect((await h.api('DELETE', `${base()}/visitor/${id}`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/visitor/${id}`)).status).toBe(404)
  })

  it("refuses a profile write's raw parameters, which /engage cannot take, instead of sending them to the read-back only", async () => {
    const id = [...emu.state.profiles.keys()][5] as string
    const before = emu.requests().length
    for (const [method, path, raw, message] of [
      ['POST', '/visitor', 'where=true', "raw: Mixpanel's profile write (/engage) takes no 'where'"],
      ['PATCH', `/visitor/${id}`, 'output_properties=["$email"]', "takes no 'output_properties'"],
      ['PUT', `/visitor/${id}`, 'ip=1', "raw: 'ip' is set by Unigate for Mixpanel's profile write; "],
      [
        'PATCH',
        `/visitor/${id}`,
        'verbose=0',
        "raw: 'verbose' is set by Unigate for Mixpanel's profile write; ",
      ],
    ] as const) {
      const res = await h.api<Rec>(method, `${base()}${path}`, {
        query: { raw },
        body: { city: 'Lyon' },
      })
      expect(res.status, `${method} ${raw}`).toBe(400)
      expect(String(res.body.message), raw).toContain(message)
    }
    expect(emu.requests()).toHaveLength(before)
    // A read still takes them: they go to /api/query/engage.
    const read = await h.api<Rec>('GET', `${base()}/visitor/${id}`, {
      query: { raw: 'output_properties=["$email"]' },
    })
    expect(read.status).toBe(200)
    expect(at('/api/query/engage').at(-1)?.body).toMatchObject({ output_properties: '["$email"]' })
  })

  it('refuses strings Mixpanel would cut short, naming the field, and sends nothing', async () => {
    // 200 two-byte characters: within 255 characters (events) but over 255 bytes (profile values).
    const long = 'é'.repeat(200)
    const visitor = await h.api<Rec>('POST', `${base()}/visitor`, {
      body: { name: long, raw: { $distinct_id: 'long-name-1' } },
    })
    expect(visitor.status).toBe(400)
    expect(String(visitor.body.message)).toMatch(/^name: .*255 bytes/)
    const nested = await h.api<Rec>('PATCH', `${base()}/visitor/long-name-1`, {
      body: { metadata: { tags: { value: ['ok', long] } } },
    })
    expect(nested.status).toBe(400)
    expect(String(nested.body.message)).toMatch(/^metadata\.tags: /)
    expect(at('/engage')).toHaveLength(0)
    const event = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'Long', visitor_id: 'a', page_title: 'x'.repeat(256) },
    })
    expect(event.status).toBe(400)
    expect(String(event.body.message)).toMatch(/^page_title: .*255 characters/)
    expect(at('/import')).toHaveLength(0)
    // 255 characters of two bytes each is still an event value Mixpanel keeps whole.
    const fits = await h.api<Rec>('POST', `${base()}/event`, {
      body: { name: 'Long', visitor_id: 'a', page_title: 'é'.repeat(255) },
    })
    expect(fits.status, fits.text).toBe(200)
  })

  it('reports a profile write Mixpanel accepted but cannot show back as a 504 that says so', async () => {
    emu.fault({ status: 400, times: 10, pathPattern: '^/api/query/engage$' })
    const res = await h.api<{ message: string }>('POST', `${base()}/visitor`, {
      body: { name: 'Unconfirmed', raw: { $distinct_id: 'unconfirmed-1' } },
    })
    emu.clearFaults()
    expect(res.status).toBe(504)
    expect(res.body.message).toMatch(
      /^Mixpanel accepted the profile update of visitor unconfirmed-1, but reading it back failed/,
    )
    expect(at('/engage')).toHaveLength(1)
  })

  it('reports event counts by day of the project zone, with the instants of those days', async () => {
    const q = { start_gte: '2024-05-10', end_lt: '2024-05-13', query: 'Signed up' }
    const byDay = await h.api<Rec[]>('GET', `${base()}/report`, { query: q })
    expect(byDay.status).toBe(200)
    const from = zoneMidnight('2024-05-10')
    const to = zoneMidnight('2024-05-13')
    expect(byDay.body[0]).toMatchObject({
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
    })
    expect(byDay.body[0]?.start_at).toBe('2024-05-10T07:00:00.000Z')
    const signups = eventsBetween(from, to).filter((e) => e.event === 'Signed up')
    expect((byDay.body[0]!.metrics as Rec[]).map((m) => [m.dimension_value, m.value])).toEqual(
      ['2024-05-10', '2024-05-11', '2024-05-12'].map((d) => [
        d,
        signups.filter((e) => zoneDay(e.properties.time) === d).length,
      ]),
    )
    expect(at('/api/query/events')[0]?.query).toMatchObject({
      from_date: '2024-05-10',
      to_date: '2024-05-12',
    })
    // A bound that is neither a date nor a midnight of the project zone is not a whole day there.
    expect(
      (await h.api('GET', `${base()}/report`, { query: { ...q, start_gte: '2024-05-10T05:00:00Z' } })).status,
    ).toBe(400)
    const zoned = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...q, start_gte: '2024-05-10T07:00:00Z' },
    })
    expect(zoned.body[0]?.start_at).toBe('2024-05-10T07:00:00.000Z')
  })

  it('reads a window before the year 1000 as those years, not as a 502 blaming Mixpanel', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: '0001-01-01', end_lt: '0001-01-03', query: 'Signed up' },
    })
    expect(res.status).toBe(200)
    // Los Angeles kept local mean time (UTC-7:52:58) until 1883.
    expect(res.body[0]).toMatchObject({
      start_at: '0001-01-01T07:52:58.000Z',
      end_at: '0001-01-03T07:52:58.000Z',
    })
    expect((res.body[0]!.metrics as Rec[]).map((m) => [m.dimension_value, m.value])).toEqual([
      ['0001-01-01', 0],
      ['0001-01-02', 0],
    ])
    expect(at('/api/query/events')[0]?.query).toMatchObject({
      from_date: '0001-01-01',
      to_date: '0001-01-02',
    })
  })

  it('refuses a report window longer than its bound before asking Mixpanel, and serves one as long', async () => {
    const before = emu.requests().length
    const refused = async (query: Record<string, string>, days: number, max: number) => {
      const res = await h.api<{ message: string }>('GET', `${base()}/report`, { query })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('start_gte/end_lt')
      expect(res.body.message).toContain(`at most ${max} days`)
      expect(res.body.message).toContain(`holds ${days}`)
    }
    // Millions of days by day: refused, with or without an event name (which would ask for /events/names).
    await refused({ start_gte: '0001-01-01', end_lt: '9999-12-31', query: 'Signed up' }, 3_652_058, 10_000)
    await refused({ start_gte: '0001-01-01', end_lt: '9999-12-31' }, 3_652_058, 10_000)
    await refused({ start_gte: '2000-01-01', end_lt: '2027-05-20', query: 'Signed up' }, 10_001, 10_000)
    await refused(
      { start_gte: '2000-01-01', end_lt: '2027-05-20', query: 'Signed up', dimension: 'COUNTRY' },
      10_001,
      10_000,
    )
    await refused(
      { start_gte: '2024-01-01', end_lt: '2025-02-21', query: 'Signed up', dimension: 'HOUR' },
      417,
      416,
    )
    expect(emu.requests()).toHaveLength(before)

    // The longest windows are asked for and answered whole.
    const byDay = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: '2000-01-01', end_lt: '2027-05-19', query: 'Signed up' },
    })
    expect(byDay.status).toBe(200)
    expect(byDay.body[0]!.metrics as Rec[]).toHaveLength(10_000)
    expect(at('/api/query/events').at(-1)?.query).toMatchObject({
      from_date: '2000-01-01',
      to_date: '2027-05-18',
    })
    const byHour = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { start_gte: '2024-01-01', end_lt: '2025-02-20', query: 'Signed up', dimension: 'HOUR' },
    })
    expect(byHour.status).toBe(200)
    expect(at('/api/query/events').at(-1)?.query).toMatchObject({
      from_date: '2024-01-01',
      to_date: '2025-02-19',
    })
    // Los Angeles: one hour skipped in spring 2024, none repeated before 2025-02-20 but 2024-11-03's.
    expect((byHour.body[0]!.metrics as Rec[]).length).toBeGreaterThan(9_980)
  })

  it('reports by country, and unique users only by day or longer', async () => {
    const q = { start_gte: '2024-05-10', end_lt: '2024-05-13', query: 'Signed up' }
    const signups = eventsBetween(zoneMidnight('2024-05-10'), zoneMidnight('2024-05-13')).filter(
      (e) => e.event === 'Signed up',
    )
    const byCountry = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...q, dimension: 'COUNTRY' } })
    const total = (byCountry.body[0]!.metrics as Rec[]).reduce((a, m) => a + Number(m.value), 0)
    expect(total).toBe(signups.length)
    // Without `limit` Mixpanel keeps only the top 60 values.
    expect(at('/api/query/segmentation')[0]?.query).toMatchObject({
      on: 'properties["mp_country_code"]',
      event: 'Signed up',
      limit: '10000',
    })
    const users = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...q, type: 'USERS' } })
    expect((users.body[0]!.metrics as Rec[]).every((m) => m.type === 'USERS')).toBe(true)
    // Mixpanel has no hourly uniques: refused rather than answered with another number.
    const hourly = await h.api<Rec>('GET', `${base()}/report`, {
      query: { ...q, type: 'USERS', dimension: 'HOUR' },
    })
    expect(hourly.status).toBe(501)
    expect(hourly.body.message).toContain('HOUR')
    expect(
      (await h.api('GET', `${base()}/report`, { query: { ...q, type: 'USERS', dimension: 'COUNTRY' } }))
        .status,
    ).toBe(501)
    expect((await h.api('GET', `${base()}/report`, { query: { ...q, type: 'BOUNCE_RATE' } })).status).toBe(
      501,
    )
    // `$device` names the device (iPhone, Android), not desktop/mobile/tablet: no DEVICE_TYPE to report by.
    const byDevice = await h.api<Rec>('GET', `${base()}/report`, {
      query: { ...q, dimension: 'DEVICE_TYPE' },
    })
    expect(byDevice.status).toBe(501)
    expect(String(byDevice.body.message)).toContain('not desktop, mobile or tablet')
    // Every event is countable only within the last 31 days, which Mixpanel names the events of.
    const old = await h.api<{ message: string }>('GET', `${base()}/report`, {
      query: { start_gte: '2024-05-10' },
    })
    expect(old.status).toBe(400)
    expect(old.body.message).toMatch(
      /^query is required: Mixpanel names a project's events for the last 31 days only/,
    )
  })

  it('maps a lasting 429 to 429 and a 500 to 502', async () => {
    emu.fault({ status: 429, times: 10, pathPattern: '^/api/app/me$' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(429)
    expect(at('/api/app/me')).toHaveLength(3)
    emu.clearFaults()
    emu.fault({ status: 500, pathPattern: '^/api/app/me$' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(502)
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'mixpanel')
    expect(Object.keys(support).sort()).toEqual([
      'analytics_event',
      'analytics_property',
      'analytics_report',
      'analytics_visitor',
    ])
    const visitor = [...emu.state.profiles.keys()][0] as string
    const ids: Record<string, string> = { analytics_property: DEFAULT_PROJECT_ID, analytics_visitor: visitor }
    const listQuery: Record<string, Record<string, string>> = {
      analytics_event: { start_gte: '2024-05-01' },
      analytics_report: { type: 'PAGE_VIEWS' },
    }
    const bodies: Record<string, Rec> = {
      analytics_event: { name: 'Matrix', visitor_id: 'u_1' },
      analytics_visitor: { email: 'matrix@example.com' },
      analytics_property: { name: 'x' },
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => listQuery[object],
      body: ({ object, method }) => (method === 'create' ? bodies[object] : { name: 'Renamed' }),
      id: async ({ object, method, claimed, path }) => {
        if (!(method === 'remove' && claimed)) return ids[object] ?? 'x'
        const id = String((await h.api<Rec>('POST', path, { body: bodies[object] })).body.id)
        // The profile is readable once Mixpanel has processed the write.
        emu.state.settleProfiles(Number.POSITIVE_INFINITY)
        return id
      },
    })
  })
})

/** A project with recent events: reports need no event name to count every event. */
describe('Mixpanel reports without an event name', () => {
  let h: Harness
  let emu: MixpanelEmulator
  let conn: string
  const base = () => `/analytics/${conn}`
  const at = (path: string) => emu.requests().filter((r) => r.path === path)

  useEmulatorSuite({
    start: () => startMixpanelEmulator({ seed: 11, events: 800, until: new Date().toISOString() }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'mixpanel',
        auth: {
          username: DEFAULT_SERVICE_ACCOUNT.username,
          secret: DEFAULT_SERVICE_ACCOUNT.secret,
          project_id: DEFAULT_PROJECT_ID,
          project_token: DEFAULT_PROJECT_TOKEN,
          api_url: emu.url,
        },
      })
    },
  })

  it('counts every event Mixpanel names, by day of the default window', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/report`)
    expect(res.status, res.text).toBe(200)
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const perDay = new Map<string, number>()
    for (const e of emu.state.queryable()) {
      const t = e.properties.time
      if (t < today - 7 * DAY_MS || t >= today) continue
      const day = new Date(t).toISOString().slice(0, 10)
      perDay.set(day, (perDay.get(day) ?? 0) + 1)
    }
    const metrics = res.body[0]?.metrics as Rec[]
    expect(metrics).toHaveLength(7)
    for (const m of metrics) {
      expect(m).toMatchObject({ type: 'EVENTS', dimension: 'DATE' })
      expect(m.value, String(m.dimension_value)).toBe(perDay.get(String(m.dimension_value)) ?? 0)
    }
    expect([...perDay.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    // The names come from /events/names; one /events request counts them all.
    const names = new Set(emu.state.queryable().map((e) => e.event))
    expect(at('/api/query/events/names')[0]?.query).toMatchObject({ type: 'general', limit: '1000' })
    const [counted] = at('/api/query/events')
    expect(new Set(JSON.parse(String(counted?.query.event)))).toEqual(names)
    expect(at('/api/query/events')).toHaveLength(1)
  })

  it('asks for an event name, listing the names to choose from, where every event cannot be counted', async () => {
    const names = [...new Set(emu.state.queryable().map((e) => e.event))]
    for (const query of [{ type: 'USERS' }, { dimension: 'COUNTRY' }] as Record<string, string>[]) {
      const res = await h.api<{ message: string }>('GET', `${base()}/report`, { query })
      expect(res.status, res.text).toBe(400)
      expect(res.body.message).toMatch(
        /^query is required: .*; name the Mixpanel event to count, choose one of /,
      )
      for (const name of names) expect(res.body.message).toContain(`'${name}'`)
    }
    // Named, they are served.
    const users = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { type: 'USERS', query: names[0]! },
    })
    expect(users.status, users.text).toBe(200)
  })

  it('counts many event names in several requests, and refuses a name list that may be cut short', async () => {
    const yesterday = Math.floor(Date.now() / DAY_MS) * DAY_MS - 12 * 3_600_000
    const add = (names: readonly string[]) => {
      for (const [i, event] of names.entries()) {
        emu.state.importEvent({
          event,
          properties: {
            time: yesterday + i,
            distinct_id: `many-${i}`,
            $insert_id: `many-${event.length}-${i}`,
          },
        })
      }
    }
    // 60 names of 100 characters: more than one request's worth of names.
    add(Array.from({ length: 60 }, (_, i) => `${String(i).padStart(3, '0')}-${'x'.repeat(96)}`))
    const day = new Date(yesterday).toISOString().slice(0, 10)
    const expected = emu.state
      .queryable()
      .filter((e) => new Date(e.properties.time).toISOString().slice(0, 10) === day).length
    const res = await h.api<Rec[]>('GET', `${base()}/report`)
    expect(res.status, res.text).toBe(200)
    const metrics = (res.body[0]?.metrics ?? []) as Rec[]
    expect(metrics.find((m) => m.dimension_value === day)?.value).toBe(expected)
    const requests = at('/api/query/events')
    expect(requests.length).toBeGreaterThan(1)
    for (const r of requests) expect(String(r.query.event).length).toBeLessThanOrEqual(4000)

    // 1000 names or more: Mixpanel's list may be cut short, so it cannot stand for every event.
    add(Array.from({ length: 1000 }, (_, i) => `bulk-${i}`))
    const capped = await h.api<{ message: string }>('GET', `${base()}/report`)
    expect(capped.status).toBe(400)
    expect(capped.body.message).toMatch(
      /^query is required: Mixpanel names 1000 or more events .* and \d+ more$/,
    )
  })
})

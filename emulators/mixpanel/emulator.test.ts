import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  type MixpanelEmulator,
  startMixpanelEmulator,
} from './index.js'
import { compileWhere, WhereError } from './where.js'

const basic = `Basic ${Buffer.from(`${DEFAULT_SERVICE_ACCOUNT.username}:${DEFAULT_SERVICE_ACCOUNT.secret}`).toString('base64')}`

describe('Mixpanel emulator strictness', () => {
  let emu: MixpanelEmulator
  beforeAll(async () => {
    emu = await startMixpanelEmulator({ seed: 2, events: 50, profiles: 5 })
  })
  afterAll(async () => emu?.close())

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, auth = basic) => {
    const res = await request(`${emu.url}${path}`, {
      method,
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await res.body.text()
    return { status: res.statusCode, text, type: String(res.headers['content-type']) }
  }

  it('streams the export as JSON lines with seconds, or milliseconds on request', async () => {
    const q = `/api/2.0/export?project_id=${DEFAULT_PROJECT_ID}&from_date=2024-05-01&to_date=2024-05-30`
    const seconds = await call('GET', q)
    expect(seconds.type).toContain('text/plain')
    const first = JSON.parse(seconds.text.split('\n')[0] as string) as { properties: { time: number } }
    expect(first.properties.time).toBeLessThan(1e11)
    const ms = await call('GET', `${q}&time_in_ms=true&limit=2`)
    expect(ms.text.trim().split('\n')).toHaveLength(2)
    expect((await call('GET', `${q}&limit=100001`)).status).toBe(400)
    expect(
      (
        await call(
          'GET',
          `/api/2.0/export?project_id=${DEFAULT_PROJECT_ID}&from_date=2024-5-1&to_date=2024-05-30`,
        )
      ).status,
    ).toBe(400)
    expect((await call('GET', q, undefined, 'Basic bm9wZTpub3Bl')).status).toBe(401)
    expect((await call('GET', q.replace(DEFAULT_PROJECT_ID, '1'))).status).toBe(403)
  })

  it('exports a repeated import twice but counts it once in queries', async () => {
    const time = Date.UTC(2024, 0, 3, 12)
    const event = { event: 'Repeated', properties: { time, distinct_id: 'rep', $insert_id: 'rep-1' } }
    for (let i = 0; i < 2; i++) {
      expect((await call('POST', `/import?strict=1&project_id=${DEFAULT_PROJECT_ID}`, [event])).status).toBe(
        200,
      )
    }
    const exported = await call(
      'GET',
      `/api/2.0/export?project_id=${DEFAULT_PROJECT_ID}&from_date=2024-01-03&to_date=2024-01-03&event=${encodeURIComponent('["Repeated"]')}`,
    )
    expect(exported.text.trim().split('\n')).toHaveLength(2)
    const counted = await call(
      'GET',
      `/api/query/events?project_id=${DEFAULT_PROJECT_ID}&from_date=2024-01-03&to_date=2024-01-03&type=general&unit=day&event=${encodeURIComponent('["Repeated"]')}`,
    )
    expect(JSON.parse(counted.text).data.values.Repeated).toEqual({ '2024-01-03': 1 })
  })

  it('names the top events of the last 31 days only, up to limit, and needs a type', async () => {
    const now = Date.now()
    const imported = [
      ...Array.from({ length: 3 }, (_, i) => ({ event: 'zeta Recent', at: now - i * 60_000 })),
      { event: 'Alpha recent', at: now - 2 * 86_400_000 },
      { event: 'Too old', at: now - 32 * 86_400_000 },
    ].map((e, i) => ({
      event: e.event,
      properties: { time: e.at, distinct_id: `n${i}`, $insert_id: `names-${i}` },
    }))
    expect((await call('POST', `/import?strict=1&project_id=${DEFAULT_PROJECT_ID}`, imported)).status).toBe(
      200,
    )
    const names = `/api/query/events/names?project_id=${DEFAULT_PROJECT_ID}`
    // The seeded events are from 2024: only the recent imports count.
    expect(JSON.parse((await call('GET', `${names}&type=general`)).text)).toEqual([
      'Alpha recent',
      'zeta Recent',
    ])
    expect(JSON.parse((await call('GET', `${names}&type=general&limit=1`)).text)).toEqual(['zeta Recent'])
    expect((await call('GET', names)).status).toBe(400)
  })

  it('validates imports strictly and reports the failed records', async () => {
    const res = await call('POST', `/import?strict=1&project_id=${DEFAULT_PROJECT_ID}`, [
      { event: 'ok', properties: { time: Date.now(), distinct_id: 'a', $insert_id: 'id-1' } },
      { event: 'bad', properties: { time: 'yesterday', distinct_id: 'a', $insert_id: 'id-2' } },
      { event: 'bad', properties: { time: Date.now(), distinct_id: 'a', $insert_id: 'not valid!' } },
    ])
    expect(res.status).toBe(400)
    const body = JSON.parse(res.text) as {
      failed_records: Array<{ index: number; field: string }>
      num_records_imported: number
    }
    // Strict mode still ingests the valid events of a batch, and counts them.
    expect(body.num_records_imported).toBe(1)
    expect(body.failed_records.map((f) => [f.index, f.field])).toEqual([
      [1, 'properties.time'],
      [2, 'properties.$insert_id'],
    ])
  })

  it('cuts event strings to 255 characters and profile strings to 255 bytes', async () => {
    const long = 'é'.repeat(300)
    const imported = await call('POST', `/import?strict=1&project_id=${DEFAULT_PROJECT_ID}`, [
      {
        event: 'Long',
        properties: { time: Date.now(), distinct_id: 'long-1', $insert_id: 'long-1', note: long },
      },
    ])
    expect(imported.status).toBe(200)
    const stored = emu.state.events.find((e) => e.properties.$insert_id === 'long-1')
    expect(stored?.properties.note).toBe('é'.repeat(255))
    const res = await request(`${emu.url}/engage?verbose=1&ip=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ $token: DEFAULT_PROJECT_TOKEN, $distinct_id: 'long-1', $set: { note: long } }]),
    })
    await res.body.text()
    emu.state.settleProfiles(Number.POSITIVE_INFINITY)
    // 'é' is two bytes: 127 of them fit in 255 bytes.
    expect(emu.state.profiles.get('long-1')?.$properties.note).toBe('é'.repeat(127))
  })

  it('needs the session_id of page 0 for later engage pages', async () => {
    const res = await request(`${emu.url}/api/query/engage?project_id=${DEFAULT_PROJECT_ID}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'page=1',
    })
    expect(res.statusCode).toBe(400)
    await res.body.text()
  })

  it('evaluates the where subset and refuses the rest', () => {
    const where = compileWhere(
      'properties["$email"]=="a@b.co" or "Ann" in properties["$name"] and properties["x"]=="1"',
    )
    expect(where({ $email: 'a@b.co' })).toBe(true)
    expect(where({ $name: 'Ann Lee', x: '1' })).toBe(true)
    expect(where({ $name: 'Ann Lee', x: '2' })).toBe(false)
    expect(() => compileWhere('properties["a"] > 3')).toThrow(WhereError)
  })

  it('concatenates strings with + inside in, and a + of anything but strings matches nothing', () => {
    const where = compileWhere('"n L" in (properties["$first_name"] + " " + properties["$last_name"])')
    expect(where({ $first_name: 'Ann', $last_name: 'Lee' })).toBe(true)
    expect(where({ $first_name: 'Ann', $last_name: 'Ng' })).toBe(false)
    expect(where({ $first_name: 'Ann' })).toBe(false)
    expect(where({ $first_name: 'Ann', $last_name: 7 })).toBe(false)
    expect(() => compileWhere('"a" in (properties["a"])')).toThrow(WhereError)
    expect(() => compileWhere('"a" in (properties["a"] - properties["b"])')).toThrow(WhereError)
  })
})

describe('Mixpanel emulator: project zone, caps and asynchronous profiles', () => {
  const zone = 'America/Los_Angeles'
  let emu: MixpanelEmulator
  beforeAll(async () => {
    emu = await startMixpanelEmulator({
      seed: 3,
      events: 300,
      profiles: 3,
      timezone: zone,
      legacyLocalTime: true,
    })
  })
  afterAll(async () => emu?.close())

  const get = async (path: string) => {
    const res = await request(`${emu.url}${path}`, { headers: { authorization: basic } })
    return { status: res.statusCode, text: await res.body.text() }
  }
  const laDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(ms))
  const p = `project_id=${DEFAULT_PROJECT_ID}`

  it('stores a pre-2023 project time as its local wall clock and reads export days in its zone', async () => {
    const e = emu.state.events[0]
    const t = e?.properties.time as number
    const day = laDay(t)
    const res = await get(`/api/2.0/export?${p}&from_date=${day}&to_date=${day}&time_in_ms=true`)
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { properties: { $insert_id: string; time: number } })
    const line = lines.find((l) => l.properties.$insert_id === e?.properties.$insert_id)
    const wall = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(t))
    const part = (k: string) => Number(wall.find((x) => x.type === k)?.value)
    const expected =
      Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) +
      (t % 1000)
    expect(line?.properties.time).toBe(expected)
    // Every line of the day is an event of that Los Angeles day.
    const ids = new Set(lines.map((l) => l.properties.$insert_id))
    expect(ids).toEqual(
      new Set(
        emu.state.events.filter((x) => laDay(x.properties.time) === day).map((x) => x.properties.$insert_id),
      ),
    )
  })

  it('streams export lines unsorted (their order is undocumented)', async () => {
    const res = await get(`/api/2.0/export?${p}&from_date=2024-04-01&to_date=2024-05-31&time_in_ms=true`)
    const times = res.text
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { properties: { time: number } }).properties.time)
    expect(times.length).toBeGreaterThan(100)
    expect(times).not.toEqual([...times].sort((a, b) => a - b))
  })

  it('counts Query API days in the project zone, and has no hourly uniques', async () => {
    const day = laDay(emu.state.events[5]?.properties.time as number)
    const res = await get(
      `/api/query/events?${p}&from_date=${day}&to_date=${day}&unit=day&type=general&event=${encodeURIComponent('["$mp_web_page_view"]')}`,
    )
    const body = JSON.parse(res.text) as { data: { values: Record<string, Record<string, number>> } }
    expect(body.data.values.$mp_web_page_view?.[day]).toBe(
      emu.state.events.filter((e) => e.event === '$mp_web_page_view' && laDay(e.properties.time) === day)
        .length,
    )
    const hourly = await get(
      `/api/query/events?${p}&from_date=${day}&to_date=${day}&unit=hour&type=unique&event=${encodeURIComponent('["Signed up"]')}`,
    )
    expect(hourly.status).toBe(400)
  })

  it('keeps the top 60 segmentation values unless limit says otherwise, up to 10 000', async () => {
    const q = `/api/query/segmentation?${p}&from_date=2024-04-01&to_date=2024-05-31&event=${encodeURIComponent('$mp_web_page_view')}&on=${encodeURIComponent('properties["$insert_id"]')}`
    const views = emu.state.events.filter((e) => e.event === '$mp_web_page_view').length
    expect(views).toBeGreaterThan(60)
    const values = async (path: string) =>
      Object.keys((JSON.parse((await get(path)).text) as { data: { values: object } }).data.values).length
    expect(await values(q)).toBe(60)
    expect(await values(`${q}&limit=10000`)).toBe(views)
    expect((await get(`${q}&limit=10001`)).status).toBe(400)
  })

  it('geolocates profile writes unless ip=0, and shows them only after the ingestion delay', async () => {
    const write = async (ip: string, id: string) => {
      const res = await request(`${emu.url}/engage?verbose=1${ip}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ $token: DEFAULT_PROJECT_TOKEN, $distinct_id: id, $set: { plan: 'pro' } }]),
      })
      expect(await res.body.json()).toEqual({ status: 1, error: null })
    }
    const read = async (id: string) => {
      const res = await request(`${emu.url}/api/query/engage?${p}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: `distinct_id=${id}`,
      })
      return ((await res.body.json()) as { results: Array<{ $properties: Record<string, unknown> }> })
        .results[0]
    }
    await write('', 'geo-default')
    await write('&ip=0', 'geo-off')
    expect(await read('geo-default')).toBeUndefined()
    emu.state.settleProfiles(Number.POSITIVE_INFINITY)
    expect((await read('geo-default'))?.$properties).toMatchObject({
      plan: 'pro',
      $city: 'Ashburn',
      $country_code: 'US',
    })
    expect((await read('geo-off'))?.$properties).toMatchObject({ plan: 'pro' })
    expect((await read('geo-off'))?.$properties.$city).toBeUndefined()
  })
  it('dates profiles as Mixpanel does: First Seen computed, $created never filled in, $last_seen on update', async () => {
    const engage = async (id: string) => {
      const res = await request(`${emu.url}/api/query/engage?${p}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: `distinct_id=${id}`,
      })
      return ((await res.body.json()) as { results: Array<{ $properties: Record<string, unknown> }> })
        .results[0]?.$properties
    }
    const seeded = [...emu.state.profiles.keys()][0] as string
    const first = Math.min(
      ...emu.state.events.filter((e) => e.properties.distinct_id === seeded).map((e) => e.properties.time),
    )
    expect((await engage(seeded))?.$mp_first_event_time).toBe(new Date(first).toISOString().slice(0, 19))
    const before = Date.now()
    await request(`${emu.url}/engage?verbose=1&ip=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ $token: DEFAULT_PROJECT_TOKEN, $distinct_id: 'dated', $set: { plan: 'pro' } }]),
    })
    emu.state.settleProfiles(Number.POSITIVE_INFINITY)
    const written = await engage('dated')
    expect(written?.$created).toBeUndefined()
    expect(Date.parse(`${String(written?.$last_seen)}Z`)).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000,
    )
  })
})

import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventsOfExportArchive } from '../../src/integrations/amplitude/export-archive.js'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
} from './index.js'

const basic = `Basic ${Buffer.from(`${DEFAULT_API_KEY}:${DEFAULT_SECRET_KEY}`).toString('base64')}`

describe('Amplitude emulator strictness', () => {
  let emu: AmplitudeEmulator
  beforeAll(async () => {
    emu = await startAmplitudeEmulator({ seed: 4, users: 5, events: 80 })
  })
  afterAll(async () => emu?.close())

  const get = async (path: string, auth = basic) => {
    const res = await request(`${emu.url}${path}`, { headers: { authorization: auth } })
    return {
      status: res.statusCode,
      body: Buffer.from(await res.body.arrayBuffer()),
      type: String(res.headers['content-type']),
    }
  }

  it('exports a zip of gzipped JSON lines by upload hour, 404 without data, 400 past 365 days', async () => {
    const zip = await get('/api/2/export?start=20240501T00&end=20240531T23')
    expect(zip.type).toBe('application/zip')
    const events = await eventsOfExportArchive(zip.body)
    expect(events).toHaveLength(emu.state.events.length)
    expect(events[0]?.event_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/)
    expect((await get('/api/2/export?start=20200101T00&end=20200101T05')).status).toBe(404)
    expect((await get('/api/2/export?start=20220101T00&end=20240101T00')).status).toBe(400)
    expect((await get('/api/2/export?start=2024-05-01&end=20240502T00')).status).toBe(400)
    expect((await get('/api/2/export?start=20240501T00&end=20240501T05', 'Basic eDp5')).status).toBe(401)
  })

  it('validates HTTP V2 events and drops a repeated insert_id', async () => {
    const send = async (body: unknown) => {
      const res = await request(`${emu.url}/2/httpapi`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> }
    }
    expect((await send({ events: [] })).body).toMatchObject({ code: 400, missing_field: 'api_key' })
    const short = await send({ api_key: DEFAULT_API_KEY, events: [{ user_id: 'u1', event_type: 'x' }] })
    expect(short.body).toMatchObject({ code: 400, events_with_invalid_fields: { user_id: [0] } })
    const noType = await send({ api_key: DEFAULT_API_KEY, events: [{ user_id: 'user-long' }] })
    expect(noType.body).toMatchObject({ events_with_missing_fields: { event_type: [0] } })
    const before = emu.state.events.length
    const event = { user_id: 'user-long', event_type: 'x', insert_id: 'same-id' }
    expect((await send({ api_key: DEFAULT_API_KEY, events: [event] })).status).toBe(200)
    expect((await send({ api_key: DEFAULT_API_KEY, events: [event] })).status).toBe(200)
    expect(emu.state.events.length).toBe(before + 1)
    const huge = await send({
      api_key: DEFAULT_API_KEY,
      events: [{ ...event, event_properties: { x: 'y'.repeat(1_100_000) } }],
    })
    expect(huge).toEqual({ status: 413, body: { code: 413, error: 'Payload too large' } })
  })
})

describe('Amplitude emulator: export delay and size, revenue properties, group-by caps, deletions', () => {
  let emu: AmplitudeEmulator
  beforeAll(async () => {
    emu = await startAmplitudeEmulator({ seed: 6, users: 6, events: 300, exportMaxBytes: 4000 })
  })
  afterAll(async () => emu?.close())

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${emu.url}${path}`, {
      method,
      headers: { authorization: basic, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) }
  }
  const json = (b: Buffer) => JSON.parse(b.toString('utf8')) as Record<string, unknown>
  const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13).replace(/-/g, '')

  it('refuses an archive over the size limit with 400, and exports an upload hour only 3 hours after it starts', async () => {
    const big = await call('GET', '/api/2/export?start=20240501T00&end=20240531T23')
    expect(big.status).toBe(400)
    expect(big.body.toString()).toContain('4GB')
    const oneHour = emu.state.events[0]?.uploadTimeMs as number
    expect((await call('GET', `/api/2/export?start=${hour(oneHour)}&end=${hour(oneHour)}`)).status).toBe(200)
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: DEFAULT_API_KEY,
        events: [{ user_id: 'fresh-user', event_type: 'x' }],
      }),
    })
    expect(sent.statusCode).toBe(200)
    await sent.body.text()
    const now = Date.now()
    expect((await call('GET', `/api/2/export?start=${hour(now)}&end=${hour(now)}`)).status).toBe(404)
  })

  it('keeps revenue in $-event properties, never at the top level', async () => {
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: DEFAULT_API_KEY,
        events: [
          { user_id: 'buyer-1', event_type: 'Order', price: 4, quantity: 3, currency: 'EUR', revenue: 1 },
        ],
      }),
    })
    await sent.body.text()
    const e = emu.state.events.find((x) => x.user_id === 'buyer-1')
    const rendered = emu.state.render(e as NonNullable<typeof e>)
    expect(rendered.event_properties).toEqual({ $price: 4, $quantity: 3, $revenue: 12, $currency: 'EUR' })
    expect(rendered).not.toHaveProperty('revenue')
    expect(rendered).not.toHaveProperty('price')
  })

  it('keeps the top 100 group-by values unless limit (at most 1000), 7 days of hours and 365 of days', async () => {
    const events = Array.from({ length: 150 }, (_, i) => ({
      user_id: `city-user-${i}`,
      event_type: 'Visit',
      city: `City ${i}`,
      time: Date.UTC(2024, 4, 20, 12),
    }))
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: DEFAULT_API_KEY, events }),
    })
    await sent.body.text()
    const e = encodeURIComponent(JSON.stringify({ event_type: 'Visit' }))
    const q = `/api/2/events/segmentation?e=${e}&start=20240520&end=20240520&m=totals&g=city`
    const labels = async (path: string) =>
      ((json((await call('GET', path)).body).data as { seriesLabels: unknown[] }).seriesLabels ?? []).length
    expect(await labels(q)).toBe(100)
    expect(await labels(`${q}&limit=1000`)).toBe(150)
    expect((await call('GET', `${q}&limit=1001`)).status).toBe(400)
    const hourly = json(
      (await call('GET', `/api/2/events/segmentation?e=${e}&start=20240501&end=20240520&i=-3600000`)).body,
    )
    const x = (hourly.data as { xValues: string[] }).xValues
    expect(x).toHaveLength(7 * 24)
    expect(x[0]).toBe('2024-05-14T00:00')
    const daily = json(
      (await call('GET', `/api/2/events/segmentation?e=${e}&start=20230101&end=20240520&m=totals`)).body,
    )
    const days = (daily.data as { xValues: string[] }).xValues
    expect(days).toHaveLength(365)
    expect(days.at(-1)).toBe('2024-05-20')
  })

  it('cuts string values over 1024 characters and answers success all the same', async () => {
    const long = 'x'.repeat(1030)
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: DEFAULT_API_KEY,
        events: [{ user_id: 'long-1', event_type: 'Long', event_properties: { note: long } }],
      }),
    })
    expect(sent.statusCode).toBe(200)
    expect(await sent.body.json()).toMatchObject({ code: 200, events_ingested: 1 })
    const e = emu.state.events.find((x) => x.user_id === 'long-1')
    expect(emu.state.render(e as NonNullable<typeof e>).event_properties).toEqual({ note: 'x'.repeat(1024) })
  })

  it('groups by os as os_name and os_version, the browser and its version on the web', async () => {
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: DEFAULT_API_KEY,
        events: [
          {
            user_id: 'os-user-1',
            event_type: 'OsCheck',
            os_name: 'Chrome',
            os_version: '124',
            time: Date.UTC(2024, 4, 21, 12),
          },
          { user_id: 'os-user-2', event_type: 'OsCheck', os_name: 'ios', time: Date.UTC(2024, 4, 21, 12) },
        ],
      }),
    })
    await sent.body.text()
    const e = encodeURIComponent(JSON.stringify({ event_type: 'OsCheck' }))
    const res = await call(
      'GET',
      `/api/2/events/segmentation?e=${e}&start=20240521&end=20240521&m=totals&g=os`,
    )
    expect((json(res.body).data as { seriesLabels: string[] }).seriesLabels.sort()).toEqual([
      'Chrome 124',
      'ios',
    ])
  })

  it("counts Dashboard REST days in the project's time zone", async () => {
    const sent = await request(`${emu.url}/2/httpapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: DEFAULT_API_KEY,
        events: [{ user_id: 'tokyo-user', event_type: 'Late Night', time: Date.UTC(2024, 4, 20, 16) }],
      }),
    })
    await sent.body.text()
    const e = encodeURIComponent(JSON.stringify({ event_type: 'Late Night' }))
    const count = async (day: string) => {
      const res = await call('GET', `/api/2/events/segmentation?e=${e}&start=${day}&end=${day}&m=totals`)
      return (json(res.body).data as { series: number[][] }).series[0]?.[0]
    }
    expect(await count('20240520')).toBe(1)
    emu.state.timezone = 'Asia/Tokyo'
    try {
      // 16:00 UTC on 20 May is 01:00 on 21 May in Tokyo.
      expect(await count('20240520')).toBe(0)
      expect(await count('20240521')).toBe(1)
    } finally {
      emu.state.timezone = 'UTC'
    }
  })

  it('deletes users only with a boolean ignore_invalid_id, and refuses unknown ids without it', async () => {
    const user = [...emu.state.users.values()][0]
    const asString = await call('POST', '/api/2/deletions/users', {
      amplitude_ids: [user?.amplitude_id],
      requester: 't',
      ignore_invalid_id: 'True',
    })
    expect(asString.status).toBe(400)
    const unknown = await call('POST', '/api/2/deletions/users', {
      amplitude_ids: [user?.amplitude_id, 1],
      requester: 't',
    })
    expect(unknown.status).toBe(400)
    expect(user?.deleted).toBe(false)
    const ok = await call('POST', '/api/2/deletions/users', {
      amplitude_ids: [user?.amplitude_id, 1],
      requester: 't',
      ignore_invalid_id: true,
    })
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body.toString())).toMatchObject([{ invalid_ids: [1] }])
    expect(user?.deleted).toBe(true)
  })
})

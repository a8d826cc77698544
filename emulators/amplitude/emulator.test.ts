import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventsOfExportArchive } from '../../src/integrations/amplitude/event.js'
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
    const events = eventsOfExportArchive(zip.body)
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

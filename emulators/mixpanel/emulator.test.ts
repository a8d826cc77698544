import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PROJECT_ID,
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
    expect(body.num_records_imported).toBe(0)
    expect(body.failed_records.map((f) => [f.index, f.field])).toEqual([
      [1, 'properties.time'],
      [2, 'properties.$insert_id'],
    ])
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
})

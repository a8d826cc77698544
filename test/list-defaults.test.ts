import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_UMAMI_LOGIN_TOKEN, startUmamiEmulator } from '../emulators/umami/index.js'
import { type Harness, startHarness } from './support/harness.js'

type Rec = Record<string, unknown> & { id: string }

/** The single-scope default: a list that needs a property works without one when the account has one. */
describe('lists that need a property', () => {
  let h: Harness
  let emu: Awaited<ReturnType<typeof startUmamiEmulator>>
  let base: string
  beforeAll(async () => {
    h = await startHarness('sqlite')
    emu = await startUmamiEmulator({ seed: 1 })
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      },
    })
    base = `/analytics/${conn.body.id}`
  })
  afterAll(async () => {
    await emu?.close()
    await h?.close()
  })

  it('names property_id and the ids to choose from while there are several, then uses the only one', async () => {
    const properties = (await h.api<Rec[]>('GET', `${base}/property`)).body
    expect(properties.length).toBeGreaterThan(1)
    const refused = await h.api<{ message: string }>('GET', `${base}/session`)
    expect(refused.status).toBe(400)
    expect(refused.body.message).toMatch(/^property_id is required/)
    for (const p of properties) expect(refused.body.message).toContain(p.id)

    // Removing through Unigate forgets the cached list, so the next list sees the one property left.
    const [kept, ...others] = properties
    for (const p of others) expect((await h.api('DELETE', `${base}/property/${p.id}`)).status).toBe(200)
    const listed = await h.api<Rec[]>('GET', `${base}/session`, { query: { limit: 3 } })
    expect(listed.status, listed.text).toBe(200)
    const asked = emu.requests().filter((r) => r.path.includes('/sessions'))
    expect(asked.at(-1)?.path).toContain(kept?.id)
  })

  it('neither uses nor names the properties of a connection not granted to read them', async () => {
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'umami',
        permissions: ['analytics_session_read'],
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      },
    })
    expect(conn.status).toBe(200)
    const before = emu.requests().filter((r) => r.path.endsWith('/websites')).length
    const refused = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/session`)
    expect(refused.status).toBe(400)
    expect(refused.body.message).toMatch(/^property_id is required/)
    expect(refused.body.message).not.toMatch(/choose one of/)
    expect(emu.requests().filter((r) => r.path.endsWith('/websites')).length).toBe(before)
  })

  it('gives reports a stable id from property, window, dimension and type', async () => {
    const query = { start_gte: '2024-05-01', end_lt: '2024-05-08', type: 'PAGE_VIEWS', dimension: 'DATE' }
    const first = await h.api<Rec[]>('GET', `${base}/report`, { query })
    const again = await h.api<Rec[]>('GET', `${base}/report`, { query: { ...query, fields: 'id' } })
    expect(first.status, first.text).toBe(200)
    expect(first.body.length).toBeGreaterThan(0)
    expect(first.body[0]?.id).toMatch(/^[0-9a-f]{16}$/)
    expect(again.body).toEqual(first.body.map((r) => ({ id: r.id })))
    const other = await h.api<Rec[]>('GET', `${base}/report`, { query: { ...query, type: 'SESSIONS' } })
    expect(other.body[0]?.id).not.toBe(first.body[0]?.id)
  })
})

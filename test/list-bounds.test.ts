import { describe, expect, it } from 'vitest'
import {
  DEFAULT_FATHOM_API_KEY,
  type FathomEmulator,
  startFathomEmulator,
} from '../emulators/fathom/index.js'
import { MAX_CURSOR_WALK } from '../src/integrations/cursors.js'
import { MAX_LIMIT, MAX_OFFSET } from '../src/models/index.js'
import type { Harness } from './support/harness.js'
import { createConnection, useEmulatorSuite } from './support/integration-suite.js'

type ErrorBody = { statusCode: number; error: string; message: string }

// Fathom pages its sites by cursor (`starting_after`), so an offset costs provider calls to reach.
describe('bounded list parameters', () => {
  let h: Harness
  let emu: FathomEmulator
  let conn: string

  useEmulatorSuite({
    start: () => startFathomEmulator({ seed: 5, sites: 30, pageviews: 50 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'fathom',
        auth: { api_key: DEFAULT_FATHOM_API_KEY, api_url: `${emu.url}/v1` },
      })
    },
  })

  const expectRefused = (res: { status: number; body: unknown }, param: string, max: number) => {
    expect(res.status).toBe(400)
    const body = res.body as ErrorBody
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    expect(body.message).toContain(param)
    expect(body.message).toContain(String(max))
  }

  it('refuses an offset above the maximum on a unified list, naming offset and the maximum, calling no provider', async () => {
    const res = await h.api('GET', `/analytics/${conn}/property`, { query: { offset: 10_000_000_000 } })
    expectRefused(res, 'offset', MAX_OFFSET)
    const just = await h.api('GET', `/analytics/${conn}/property`, { query: { offset: MAX_OFFSET + 1 } })
    expectRefused(just, 'offset', MAX_OFFSET)
    expect(emu.requests()).toEqual([])
  })

  it('refuses a limit above the maximum', async () => {
    const res = await h.api('GET', `/analytics/${conn}/property`, { query: { limit: MAX_LIMIT + 1 } })
    expectRefused(res, 'limit', MAX_LIMIT)
  })

  it('refuses an offset too far ahead of any page read for a cursor-paged provider, before walking it', async () => {
    const res = await h.api<ErrorBody>('GET', `/analytics/${conn}/property`, {
      query: { offset: MAX_CURSOR_WALK + 1, limit: 10 },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^offset: /)
    expect(res.body.message).toContain(String(MAX_CURSOR_WALK))
    expect(emu.requests()).toEqual([])
    // Reading in order keeps working: each page leaves the cursor for the next.
    const ids = emu.state.orderedSites().map((s) => s.id)
    const first = await h.api<{ id: string }[]>('GET', `/analytics/${conn}/property`, {
      query: { limit: 10 },
    })
    const second = await h.api<{ id: string }[]>('GET', `/analytics/${conn}/property`, {
      query: { limit: 10, offset: 10 },
    })
    expect([...first.body, ...second.body].map((s) => s.id)).toEqual(ids.slice(0, 20))
  })

  it('applies the same maximum to every other list: connections, integrations, webhooks, notifications, API calls', async () => {
    for (const path of [
      '/unified/connection',
      '/unified/integration',
      '/unified/webhook',
      '/unified/notification',
      '/unified/apicall',
    ]) {
      const res = await h.api('GET', path, {
        query: { offset: MAX_OFFSET + 1 },
      })
      expectRefused(res, 'offset', MAX_OFFSET)
      expectRefused(await h.api('GET', path, { query: { limit: MAX_LIMIT + 1 } }), 'limit', MAX_LIMIT)
      expect((await h.api('GET', path, { query: { offset: MAX_OFFSET } })).status, path).toBe(200)
    }
  })

  it('refuses the same offset through the tool server', async () => {
    const res = await h.api<ErrorBody>('POST', '/tools/list_analytics_properties/call', {
      query: { connection: conn },
      body: { offset: 10_000_000_000 },
    })
    expectRefused(res, 'offset', MAX_OFFSET)
    const workspace = await h.api<ErrorBody>('POST', '/tools/list_unified_connections/call', {
      body: { offset: 10_000_000_000 },
    })
    expectRefused(workspace, 'offset', MAX_OFFSET)
    expect(emu.requests()).toEqual([])
  })
})

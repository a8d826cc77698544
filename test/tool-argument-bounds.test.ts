import { maxHeaderSize } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PosthogEmulator, startPosthogEmulator } from '../emulators/posthog/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp, toolText } from './support/mcp-client.js'
import { connectPosthog } from './support/posthog.js'

/**
 * A REST call's URL is bounded by Node's HTTP server, which reads the request line with the headers within
 * `maxHeaderSize` (16 KiB). A tool call's arguments come in a JSON body (up to the body limit, 1 MiB) and
 * became query parameters of any size: 60,000 `fields` in one 769 KB call held the whole server 11 s, 80,000
 * `categories` 222 ms. A tool call now carries what a REST request may, and is told so by name before the
 * call does anything.
 */
const BOUND = maxHeaderSize
const tooLong = (tool: string, argument: string) =>
  `${tool}: ${argument} is too long: with it the call's URL would pass ${BOUND} characters, the most a REST request may carry (path and query string); give fewer or shorter values`

interface ErrorBody {
  readonly statusCode: number
  readonly message: string
}

describe('tool arguments that become URL parameters are bounded as a REST URL is', () => {
  let h: Harness
  let emu: PosthogEmulator
  let connectionId: string

  beforeAll(async () => {
    emu = await startPosthogEmulator({ seed: 5, size: { events: 50 } })
    h = await startHarness('sqlite')
    connectionId = await connectPosthog(h, emu)
  })
  afterAll(async () => {
    await h?.close()
    await emu?.close()
  })

  it('refuses 60,000 fields of a connection tool by name, over REST-style calls and MCP, before PostHog is asked', async () => {
    const fields = ['id', ...Array.from({ length: 60_000 }, (_, i) => `raw.p${i}`)]
    emu.clearRequests()
    const call = await h.api<ErrorBody>('POST', '/tools/list_analytics_events/call', {
      query: { connection: connectionId },
      body: { fields, limit: 1 },
    })
    expect(call.status).toBe(400)
    expect(call.body.message).toBe(tooLong('list_analytics_events', 'fields'))

    const client = await connectMcp(h.url, { apiKey: h.apiKey, params: { connection: connectionId } })
    const result = await client.callTool({ name: 'list_analytics_events', arguments: { fields, limit: 1 } })
    expect(result.isError).toBe(true)
    expect(toolText(result)).toBe(tooLong('list_analytics_events', 'fields'))
    // The read tool's id is in the path, as on REST.
    const get = await client.callTool({ name: 'get_analytics_event', arguments: { id: 'e'.repeat(BOUND) } })
    expect(toolText(get)).toBe(tooLong('get_analytics_event', 'id'))
    await client.close()
    expect(emu.requests()).toEqual([])

    // What a REST URL can carry still goes through: a hundred raw.<name> are a 2 KB URL.
    const some = await h.api<unknown[]>('POST', '/tools/list_analytics_events/call', {
      query: { connection: connectionId },
      body: { fields: fields.slice(0, 100), limit: 1 },
    })
    expect(some.status, some.text).toBe(200)
  })

  it('refuses a workspace tool whose arguments make a longer URL than REST takes, naming the argument', async () => {
    const categories = Array.from({ length: 80_000 }, () => 'analytics')
    const many = await h.api<ErrorBody>('POST', '/tools/list_unified_connections/call', {
      body: { categories },
    })
    expect(many.status).toBe(400)
    expect(many.body.message).toBe(tooLong('list_unified_connections', 'categories'))

    const xref = await h.api<ErrorBody>('POST', '/tools/list_unified_connections/call', {
      body: { external_xref: 'x'.repeat(900_000) },
    })
    expect(xref.status).toBe(400)
    expect(xref.body.message).toBe(tooLong('list_unified_connections', 'external_xref'))

    const client = await connectMcp(h.url, { apiKey: h.apiKey })
    const result = await client.callTool({ name: 'list_unified_connections', arguments: { categories } })
    expect(result.isError).toBe(true)
    expect(toolText(result)).toBe(tooLong('list_unified_connections', 'categories'))
    const path = await client.callTool({
      name: 'get_unified_connection',
      arguments: { id: 'c'.repeat(BOUND) },
    })
    expect(toolText(path)).toBe(tooLong('get_unified_connection', 'id'))
    await client.close()
  })

  it('takes a URL of exactly the bound, and refuses one character more', async () => {
    // `/unified/connection?external_xref=` and the value: the URL the tool makes is BOUND characters long.
    const fits = 'x'.repeat(BOUND - '/unified/connection?external_xref='.length)
    const at = await h.api<unknown[]>('POST', '/tools/list_unified_connections/call', {
      body: { external_xref: fits },
    })
    expect(at.status, at.text).toBe(200)
    expect(at.body).toEqual([])
    const over = await h.api<ErrorBody>('POST', '/tools/list_unified_connections/call', {
      body: { external_xref: `${fits}x` },
    })
    expect(over.status).toBe(400)
    expect(over.body.message).toBe(tooLong('list_unified_connections', 'external_xref'))
  })
})

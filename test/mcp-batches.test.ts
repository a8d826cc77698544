import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { turnsDuring } from './support/loop-turns.js'

interface Answer {
  readonly jsonrpc: string
  readonly id: number
  readonly result?: { content: { type: string; text: string }[]; isError?: boolean; tools?: unknown[] }
  readonly error?: unknown
}

const HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

/**
 * One POST /mcp may carry a JSON-RPC batch of up to 100 requests (the SDK's bound), which the SDK hands to
 * the server all at once. Run together, 100 integration lists held every other request of the process half
 * a second, 10 API-call log listings 10 s. The entries now take turns with the rest of the process.
 */
describe('MCP batches', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness('sqlite')
    // The tool server's first call loads the MCP modules and builds the API document: done here, not counted.
    expect(
      (await h.api('POST', '/mcp', { headers: HEADERS, body: call(0, 'list_unified_integrations') })).status,
    ).toBe(200)
  })
  afterAll(async () => h?.close())

  it('answers every entry of a batch, in order, as each alone is answered', async () => {
    const alone = await h.api<Answer>('POST', '/mcp', {
      headers: HEADERS,
      body: call(1, 'list_unified_integrations'),
    })
    const batch = [
      call(1, 'list_unified_integrations'),
      call(2, 'list_unified_connections', { limit: 5 }),
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      call(4, 'no_such_tool'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(5, 'list_unified_connections', { external_xref: 'x'.repeat(20_000) }),
      call(6, 'list_unified_integrations'),
    ]
    const res = await h.api<Answer[]>('POST', '/mcp', { headers: HEADERS, body: batch })
    expect(res.status).toBe(200)
    expect(res.body.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6])
    expect(res.body[0]!.result).toEqual(alone.body.result)
    expect(res.body[5]!.result).toEqual(alone.body.result)
    expect(JSON.parse(res.body[1]!.result!.content[0]!.text)).toEqual([])
    expect(res.body[2]!.result!.tools!.length).toBeGreaterThan(10)
    expect(res.body[3]!.result).toMatchObject({ isError: true })
    expect(res.body[3]!.result!.content[0]!.text).toMatch(/^unknown tool 'no_such_tool'/)
    expect(res.body[4]!.result).toMatchObject({ isError: true })
    expect(res.body[4]!.result!.content[0]!.text).toMatch(
      /^list_unified_connections: external_xref is too long/,
    )
  })

  it('runs a batch of 100 in turns with the rest of the process, one entry starting a turn', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => call(i + 1, 'list_unified_integrations'))
    const { result: res, turns } = await turnsDuring(() =>
      h.api<Answer[]>('POST', '/mcp', { headers: HEADERS, body: batch }),
    )
    expect(res.status).toBe(200)
    expect(res.body.map((a) => a.id)).toEqual(batch.map((b) => b.id))
    expect(new Set(res.body.map((a) => a.result!.content[0]!.text)).size).toBe(1)
    // Run at once, the batch left the event loop some 7 turns (the request's own reads and writes); now its
    // entries run at most BATCH_CONCURRENCY at a time and start one a turn.
    expect(turns).toBeGreaterThanOrEqual(batch.length)

    const tooMany = [...batch, call(101, 'list_unified_integrations')]
    const refused = await h.api<{ error: { code: number; message: string } }>('POST', '/mcp', {
      headers: HEADERS,
      body: tooMany,
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toEqual({
      code: -32600,
      message: 'Invalid Request: Batch must not exceed 100 messages',
    })
  })
})

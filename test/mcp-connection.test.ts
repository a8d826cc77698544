import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp, toolText as text } from './support/mcp-client.js'
import { storeKinds } from './support/stores.js'
import { schemaErrors, VENDOR_SCHEMAS } from './support/vendor-tool-schemas.js'

// The MCP plumbing in connection mode, against a small in-memory integration (test/support/mcp-fixture.ts);
// test/mcp-posthog.test.ts drives the real PostHog integration against its emulator.
vi.mock('../src/integrations/registry.js', async () => {
  const { fixtureIntegration } = await import('./support/mcp-fixture.js')
  return {
    INTEGRATIONS: [fixtureIntegration],
    integrationOf: (type: string) => (type === 'fixture' ? fixtureIntegration : undefined),
  }
})

describe.each(storeKinds())('tool server in connection mode on %s', (store) => {
  let h: Harness
  let provider: Server
  let providerRequests: string[]
  let connectionId: string

  beforeAll(async () => {
    h = await startHarness(store)
    providerRequests = []
    provider = createServer((req, res) => {
      providerRequests.push(`${req.method} ${req.url} ${req.headers.authorization}`)
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({ results: [{ id: 1, name: 'Power users', created_by: { email: 'ann@x.io' } }] }),
      )
    })
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r))
    const api_url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
    const created = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'fixture',
        auth: { token: 'tok_1', meta: { api_url } },
        external_xref: 'customer-7',
      },
    })
    expect(created.status).toBe(200)
    connectionId = created.body.id
  })
  afterAll(async () => {
    await h?.close()
    provider?.close()
  })

  const connect = (params: Record<string, string> = {}, protocolVersion?: string) =>
    connectMcp(h.url, {
      apiKey: h.apiKey,
      params: { connection: connectionId, ...params },
      ...(protocolVersion ? { protocolVersion } : {}),
    })

  it('initializes, lists the connection’s tools and calls them', async () => {
    const client = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'unigate' })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'list_analytics_events',
      'get_analytics_event',
      'create_analytics_event',
      'list_analytics_visitors',
      'get_analytics_visitor',
      'create_analytics_visitor',
      'update_analytics_visitor',
      'patch_analytics_visitor',
      'remove_analytics_visitor',
    ])
    const listed = await client.callTool({
      name: 'list_analytics_events',
      arguments: { property_id: 'p2', fields: ['id', 'name'] },
    })
    expect(JSON.parse(text(listed))).toEqual([{ id: 'e2', name: 'signup' }])
    expect(listed.structuredContent).toEqual({ data: [{ id: 'e2', name: 'signup' }] })
    const created = await client.callTool({
      name: 'create_analytics_event',
      arguments: { name: 'signup', value: 9 },
    })
    expect(created.structuredContent).toMatchObject({ id: 'e-new', name: 'signup', value: 9 })
    const removed = await client.callTool({ name: 'remove_analytics_visitor', arguments: { id: 'v1' } })
    expect(removed.structuredContent).toEqual({ success: true })
    await client.close()
  })

  it('gives the API’s own error message as a tool error', async () => {
    const client = await connect()
    const result = await client.callTool({
      name: 'list_analytics_events',
      arguments: { fields: ['id', 'colour'] },
    })
    const api = await h.api<{ message: string }>('GET', `/analytics/${connectionId}/event`, {
      query: { fields: 'id,colour' },
    })
    expect(api.status).toBe(400)
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: api.body.message }] })
    await client.close()
  })

  it('returns structuredContent only from protocol 2025-06-18 on', async () => {
    for (const [version, expected] of [
      ['2025-06-18', true],
      ['2025-03-26', false],
    ] as const) {
      const client = await connect({}, version)
      const result = await client.callTool({ name: 'get_analytics_event', arguments: { id: 'e1' } })
      expect('structuredContent' in result, version).toBe(expected)
      expect(JSON.parse(text(result))).toMatchObject({ id: 'e1' })
      await client.close()
    }
  })

  it('hide_sensitive removes a visitor’s email and name, also inside raw', async () => {
    const plain = await connect()
    const full = JSON.parse(
      text(
        await plain.callTool({
          name: 'get_analytics_visitor',
          arguments: { id: 'v1', fields: ['id', 'email', 'name', 'country', 'raw'] },
        }),
      ),
    )
    expect(full).toMatchObject({ email: 'ada@example.com', raw: { $ip: '81.2.69.160' } })
    await plain.close()
    const client = await connect({ hide_sensitive: 'true' })
    const hidden = await client.callTool({
      name: 'get_analytics_visitor',
      arguments: { id: 'v1', fields: ['id', 'email', 'name', 'country', 'raw'] },
    })
    expect(JSON.parse(text(hidden))).toEqual({
      id: 'v1',
      country: 'GB',
      raw: { distinct_id: 'v1', properties: { plan: 'pro' } },
    })
    await client.close()
    const http = await h.api('POST', '/tools/list_analytics_visitors/call', {
      query: { connection: connectionId, hide_sensitive: 'true' },
      body: { fields: 'id,email,raw' },
    })
    expect(http.body).toEqual([{ id: 'v1', raw: { distinct_id: 'v1', properties: { plan: 'pro' } } }])
  })

  it("calls a tool the way Unified's example client does: arguments posted as fetch's text/plain", async () => {
    // unified-to/unified-mcp-typescript, main.ts (runCohere): fetch(`…/mcp/tools/${name}/call?${params}`,
    // { method: 'POST', body: arguments }): no content type given, so fetch sends text/plain;charset=UTF-8.
    const params = new URLSearchParams({
      token: h.apiKey,
      connection: connectionId,
      type: 'cohere',
      dc: 'local',
    })
    const res = await fetch(`${h.url}/mcp/tools/get_analytics_event/call?${params}`, {
      method: 'POST',
      body: JSON.stringify({ id: 'e1' }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: 'e1' })
    // Text that is not a JSON object is refused as a JSON body would be, naming what is wrong.
    const bad = await fetch(`${h.url}/tools/get_analytics_event/call?${params}`, {
      method: 'POST',
      body: 'id=e1',
    })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { message: string }).message).toBe(
      'the body is not valid JSON: a text/plain body is read as JSON here',
    )
    // Another type is a 415 naming what the route reads.
    const form = await fetch(`${h.url}/tools/get_analytics_event/call?${params}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'id=e1',
    })
    expect(form.status).toBe(415)
    expect(((await form.json()) as { message: string }).message).toBe(
      'content-type application/x-www-form-urlencoded is not read here; send the body as application/json or text/plain',
    )
    // The MCP endpoint itself still takes JSON only, as the MCP transport does.
    const mcp = await fetch(`${h.url}/mcp?${params}`, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 1 } }),
    })
    expect(mcp.status).toBe(415)
  })

  it('permissions, tools and aliases shape the list; a filtered-out tool cannot be called', async () => {
    const client = await connect({
      permissions: 'analytics_visitor_read,analytics_visitor_write',
      aliases: 'visitor:person,user',
    })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'list_analytics_visitors',
      'get_analytics_visitor',
      'create_analytics_visitor',
      'update_analytics_visitor',
      'patch_analytics_visitor',
    ])
    expect(tools[0]!.description).toContain('list analytics persons. list analytics users')
    const refused = await client.callTool({ name: 'remove_analytics_visitor', arguments: { id: 'v1' } })
    expect(refused.isError).toBe(true)
    await client.close()
    const only = await h.api<{ id: string }[]>('GET', '/tools', {
      query: { connection: connectionId, tools: 'get_analytics_event,remove_analytics_visitor' },
    })
    expect(only.body.map((t) => t.id)).toEqual(['get_analytics_event', 'remove_analytics_visitor'])
    const call = await h.api('POST', '/tools/get_analytics_event/call', {
      query: { connection: connectionId, permissions: 'analytics_visitor_read' },
      body: { id: 'e1' },
    })
    expect(call.status).toBe(404)
  })

  it('offers only the operations the connection was granted', async () => {
    await h.api('PATCH', `/unified/connection/${connectionId}`, {
      body: { permissions: ['analytics_event_read'] },
    })
    try {
      const client = await connect()
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'list_analytics_events',
        'get_analytics_event',
      ])
      await client.close()
    } finally {
      await h.api('PATCH', `/unified/connection/${connectionId}`, {
        body: {
          permissions: [
            'analytics_event_read',
            'analytics_event_write',
            'analytics_visitor_read',
            'analytics_visitor_write',
          ],
        },
      })
    }
  })

  it('GET /tools?type=… matches each vendor’s documented tool schema', async () => {
    for (const [type, schema] of Object.entries(VENDOR_SCHEMAS)) {
      const res = await h.api<unknown[]>('GET', '/tools', {
        query: { type, connection: connectionId, include_external_tools: 'true' },
      })
      expect(res.status, type).toBe(200)
      expect(schemaErrors(schema, res.body), type).toEqual([])
      expect(JSON.stringify(res.body)).toContain('list_analytics_events')
    }
  })

  it('defer_tools marks deferred tools in the anthropic and default shapes', async () => {
    const anthropic = await h.api<{ name: string; defer_loading?: boolean }[]>('GET', '/tools', {
      query: { connection: connectionId, type: 'anthropic', defer_tools: 'visitor' },
    })
    const deferred = anthropic.body.filter((t) => t.defer_loading).map((t) => t.name)
    expect(deferred).toHaveLength(6)
    expect(deferred.every((n) => n.includes('visitor'))).toBe(true)
    const all = await h.api<{ defer_loading?: boolean }[]>('GET', '/tools', {
      query: { connection: connectionId, defer_tools: 'all' },
    })
    expect(all.body.every((t) => t.defer_loading === true)).toBe(true)
  })

  it('include_external_tools adds the integration’s provider endpoints, called through passthrough', async () => {
    const without = await connect()
    expect((await without.listTools()).tools.map((t) => t.name)).not.toContain('fixture_list_cohorts')
    await without.close()
    const client = await connect({ include_external_tools: 'true', hide_sensitive: 'true' })
    const tool = (await client.listTools()).tools.find((t) => t.name === 'fixture_list_cohorts')
    expect(tool?.description).toContain('List cohorts.')
    const result = await client.callTool({ name: 'fixture_list_cohorts', arguments: { limit: 2 } })
    expect(JSON.parse(text(result))).toEqual({ results: [{ id: 1, created_by: {} }] })
    expect(providerRequests.at(-1)).toBe('GET /api/projects/42/cohorts/?limit=2 Bearer tok_1')
    await client.close()
  })

  it('records tool calls with the connection, so the workspace sees what its agents did', async () => {
    const client = await connect()
    await client.callTool({ name: 'get_analytics_event', arguments: { id: 'e1' } })
    await client.close()
    const calls = await h.api<Record<string, unknown>[]>('GET', '/unified/apicall', {
      query: { connection_id: connectionId, type: 'mcp', limit: 1 },
    })
    expect(calls.body[0]).toMatchObject({
      name: 'get_analytics_event',
      path: 'GET /analytics/{connection_id}/event/{id}',
      method: 'GET',
      status: '200',
      connection_id: connectionId,
      integration_type: 'fixture',
      external_xref: 'customer-7',
      is_billable: true,
      type: 'mcp',
    })
    expect(calls.body[0]).not.toHaveProperty('error')
    const byIntegration = await h.api<unknown[]>('GET', '/unified/apicall', {
      query: { integration_type: 'nope' },
    })
    expect(byIntegration.body).toEqual([])
  })

  it('answers 404 for a connection of another workspace', async () => {
    const other = await h.otherWorkspace()
    const res = await h.api('GET', '/tools', { key: other.apiKey, query: { connection: connectionId } })
    expect(res.status).toBe(404)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp, toolText as text } from './support/mcp-client.js'
import { storeKinds } from './support/stores.js'
import { schemaErrors, VENDOR_SCHEMAS } from './support/vendor-tool-schemas.js'

describe.each(storeKinds())('tool server in workspace mode on %s', (store) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(store, {
      regionUrls: { na: 'http://127.0.0.1', eu: 'https://eu.unigate.example', au: undefined },
    })
  })
  afterAll(async () => h?.close())

  it('lists connection, integration and API-call tools over MCP, described and typed', async () => {
    const client = await connectMcp(h.url, { apiKey: h.apiKey })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'list_unified_connections',
        'get_unified_connection',
        'create_unified_connection',
        'update_unified_connection',
        'remove_unified_connection',
        'get_unified_connection_mcp_url',
        'list_unified_integrations',
        'list_unified_apicalls',
        'get_unified_apicall',
        'list_unified_webhooks',
        'get_unified_webhook',
        'create_unified_webhook',
        'remove_unified_webhook',
        'list_unified_notifications',
      ]),
    )
    const createWebhook = tools.find((t) => t.name === 'create_unified_webhook')!
    expect(createWebhook.inputSchema.required).toEqual(['connection_id', 'object_type', 'event'])
    expect(createWebhook.inputSchema.properties).not.toHaveProperty('runs')
    const list = tools.find((t) => t.name === 'list_unified_connections')!
    expect(list.description).toMatch(/Returns a JSON array of Connection/)
    expect(list.inputSchema.properties).toMatchObject({ order: { type: 'string', enum: ['asc', 'desc'] } })
    expect(list.annotations).toMatchObject({ readOnlyHint: true })
    const create = tools.find((t) => t.name === 'create_unified_connection')!
    expect(create.inputSchema.properties).toHaveProperty('integration_type')
    expect(create.inputSchema.properties).not.toHaveProperty('workspace_id')
    await client.close()
  })

  it('bounds aliases: each alias restates the title of every tool it matches, so 8 KB of aliases was a 480 KB list', async () => {
    const many = `unified:${Array.from({ length: 11 }, (_, i) => `x${i}`).join(',')}`
    const tooMany = await h.api<{ message: string }>('GET', '/tools', { query: { aliases: many } })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.message).toContain('aliases')
    expect(tooMany.body.message).toContain('at most 10')
    const words = Array.from({ length: 51 }, (_, i) => `w${i}:a`).join(';')
    const tooManyWords = await h.api<{ message: string }>('GET', '/tools', { query: { aliases: words } })
    expect(tooManyWords.status).toBe(400)
    expect(tooManyWords.body.message).toContain('at most 50')
    const long = await h.api<{ message: string }>('GET', '/tools', {
      query: { aliases: `unified:${'y'.repeat(65)}` },
    })
    expect(long.status).toBe(400)
    expect(long.body.message).toContain('longer than 64 characters')
    const fine = await h.api<{ description: string }[]>('GET', '/tools', {
      query: { aliases: `unified:${Array.from({ length: 10 }, (_, i) => `x${i}`).join(',')}` },
    })
    expect(fine.status).toBe(200)
    expect(fine.body.some((t) => t.description.includes('list x9 connections'))).toBe(true)
  })

  it('calls workspace tools; an API error comes back as a tool error with the API’s message', async () => {
    const client = await connectMcp(h.url, { apiKey: h.apiKey })
    const listed = await client.callTool({ name: 'list_unified_connections', arguments: { limit: 5 } })
    expect(listed.isError).toBeFalsy()
    expect(JSON.parse(text(listed))).toEqual([])
    const webhooks = await client.callTool({ name: 'list_unified_webhooks', arguments: {} })
    expect(JSON.parse(text(webhooks))).toEqual([])
    const bad = await client.callTool({
      name: 'create_unified_connection',
      arguments: { integration_type: 'nope' },
    })
    expect(bad.isError).toBe(true)
    const api = await h.api<{ message: string }>('POST', '/unified/connection', {
      body: { integration_type: 'nope' },
    })
    expect(text(bad)).toBe(api.body.message)
    const missing = await client.callTool({
      name: 'get_unified_connection',
      arguments: { id: 'cn_na_missing' },
    })
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'connection cn_na_missing not found' }],
    })
    const unknownArg = await client.callTool({
      name: 'list_unified_connections',
      arguments: { colour: 'red' },
    })
    expect(text(unknownArg)).toContain("unknown argument 'colour'")
    // The session survives every failure.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
  })

  it('returns structuredContent only to clients speaking 2025-06-18 or later', async () => {
    const current = await connectMcp(h.url, { apiKey: h.apiKey })
    const newer = await current.callTool({ name: 'list_unified_integrations', arguments: {} })
    expect(newer.structuredContent).toEqual({ data: JSON.parse(text(newer)) })
    await current.close()
    for (const [version, expected] of [
      ['2025-06-18', true],
      ['2025-03-26', false],
    ] as const) {
      const client = await connectMcp(h.url, { apiKey: h.apiKey, protocolVersion: version })
      const result = await client.callTool({ name: 'list_unified_connections', arguments: {} })
      expect('structuredContent' in result, version).toBe(expected)
      expect(JSON.parse(text(result))).toEqual([])
      await client.close()
    }
  })

  it('authenticates with the token URL parameter and never logs it', async () => {
    const client = await connectMcp(h.url, { params: { token: h.apiKey } })
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
    const tools = await h.api('GET', '/tools', { key: null, query: { token: h.apiKey } })
    expect(tools.status).toBe(200)
    expect(h.logs()).toContain('/mcp')
    expect(h.logs()).not.toContain(h.apiKey)
  })

  it('refuses a missing or wrong key with 401 JSON', async () => {
    for (const query of [{}, { token: 'forged' }] as Record<string, string>[]) {
      const res = await h.api('POST', '/mcp', {
        key: null,
        query,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      })
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' })
    }
    await expect(connectMcp(h.url, { params: { token: 'forged' } })).rejects.toThrow()
  })

  it('refuses a call without a valid key before reading its body', async () => {
    // A body the server would refuse with a 400 once parsed: a 401 shows it was never parsed.
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`
    for (const path of ['/mcp', '/tools/list_unified_connections/call', '/mcp/tools/x/call']) {
      for (const [key, query] of [
        [null, {}],
        [null, { token: 'forged' }],
        ['forged', {}],
      ] as const) {
        for (const body of ['{not json', deep]) {
          const res = await h.api<{ message: string }>('POST', path, { key, query, body })
          expect(res.status, `${path} ${body.slice(0, 9)}`).toBe(401)
          expect(res.body.message).toMatch(/missing API key|invalid or revoked API key/)
        }
      }
    }
    // With the key, the same bodies are refused for what they are.
    const parsed = await h.api<{ message: string }>('POST', '/tools/list_unified_connections/call', {
      body: '{not json',
    })
    expect(parsed.status).toBe(400)
    // What needs no key is answered before a body is read too: the 405 of a stateless MCP server, and any
    // address without a route.
    for (const key of [null, undefined]) {
      const stateless = await h.api('DELETE', '/mcp', { key, body: deep })
      expect(stateless.status).toBe(405)
      expect(stateless.headers.allow).toBe('POST')
      const nowhere = await h.api<{ message: string }>('POST', '/nowhere', { key, body: '{not json' })
      expect(nowhere.status).toBe(404)
      expect(nowhere.body.message).toBe('no route for POST /nowhere; see /docs for the API reference')
    }
  })

  it('restricts workspace tools by permissions and tools', async () => {
    const client = await connectMcp(h.url, {
      apiKey: h.apiKey,
      params: { permissions: 'unified_connection_read,unified_integration_read' },
    })
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'get_unified_connection',
      'get_unified_connection_mcp_url',
      'list_unified_connections',
      'list_unified_integrations',
    ])
    const refused = await client.callTool({ name: 'remove_unified_connection', arguments: { id: 'x' } })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/unknown tool 'remove_unified_connection'/)
    await client.close()
    const only = await h.api<{ id: string }[]>('GET', '/tools', {
      query: { tools: 'list_unified_integrations' },
    })
    expect(only.body.map((t) => t.id)).toEqual(['list_unified_integrations'])
  })

  it('refuses a tool name it does not offer, and a URL parameter it does not know, naming them (it listed nothing)', async () => {
    const listed = (await h.api<{ id: string }[]>('GET', '/tools')).body.map((t) => t.id)
    const unknownTool = {
      statusCode: 400,
      error: 'Bad Request',
      message: `tools: 'nope' is not a tool here; allowed: ${listed.join(', ')}`,
    }
    const mcp = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    const accept = { accept: 'application/json, text/event-stream' }
    for (const [method, path, body] of [
      ['GET', '/tools', undefined],
      ['POST', '/mcp', mcp],
      ['POST', '/tools/list_unified_integrations/call', {}],
    ] as const) {
      const res = await h.api(method, path, { query: { tools: 'nope' }, body, headers: accept })
      expect(res.status, path).toBe(400)
      expect(res.body, path).toEqual(unknownTool)
    }
    const allowed =
      'connection, tools, permissions, aliases, defer_tools, include_external_tools, hide_sensitive, token, type, dc'
    for (const [method, path, body] of [
      ['GET', '/tools', undefined],
      ['POST', '/mcp', mcp],
      ['POST', '/mcp/tools/list_unified_integrations/call', {}],
    ] as const) {
      const res = await h.api(method, path, {
        query: { tool: 'list_unified_integrations' },
        body,
        headers: accept,
      })
      expect(res.status, path).toBe(400)
      expect(res.body, path).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: `unknown query parameter 'tool'; allowed: ${allowed}`,
      })
    }
  })

  it("takes the URLs of Unified's own example client as they are: type and dc on every route", async () => {
    // unified-to/unified-mcp-typescript (main.ts) builds these parameters for /tools, /mcp and the call route.
    const query = { token: h.apiKey, type: 'cohere', dc: 'local', include_external_tools: 'false' }
    const listed = await h.api<{ type: string; function: { name: string } }[]>('GET', '/tools', {
      query: { ...query, tools: 'list_unified_integrations' },
    })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.map((t) => [t.type, t.function.name])).toEqual([
      ['function', 'list_unified_integrations'],
    ])
    const called = await h.api<unknown>('POST', '/mcp/tools/list_unified_integrations/call', {
      query,
      body: {},
    })
    expect(called.status, called.text).toBe(200)
    const mcp = await h.api<{ result: { tools: unknown[] } }>('POST', '/mcp', {
      query: { ...query, type: 'gemini' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    })
    expect(mcp.status, mcp.text).toBe(200)
    expect(mcp.body.result.tools.length).toBeGreaterThan(0)
  })

  it('serves plain HTTP beside MCP: GET /tools and POST /tools/{id}/call (also under /mcp/tools)', async () => {
    const listed = await h.api<{ id: string; parameters: { name: string; required: boolean }[] }[]>(
      'GET',
      '/tools',
    )
    expect(listed.status).toBe(200)
    const get = listed.body.find((t) => t.id === 'get_unified_connection')!
    expect(get.parameters).toEqual([expect.objectContaining({ name: 'id', required: true })])
    for (const path of ['/tools/list_unified_connections/call', '/mcp/tools/list_unified_connections/call']) {
      const res = await h.api('POST', path, { body: {} })
      expect(res.status).toBe(200)
      expect(res.body).toEqual([])
    }
    const empty = await h.api('POST', '/tools/list_unified_integrations/call', {
      headers: { 'content-type': 'application/json' },
    })
    expect(empty.status).toBe(200)
    const notFound = await h.api('POST', '/tools/get_unified_connection/call', { body: { id: 'cn_na_nope' } })
    expect(notFound.status).toBe(404)
    expect(notFound.body).toMatchObject({ message: 'connection cn_na_nope not found' })
    const unknown = await h.api('POST', '/tools/drop_everything/call', { body: {} })
    expect(unknown.status).toBe(404)
  })

  it('names the right regional address for a connection of another region', async () => {
    const res = await h.api<{ message: string; url: string; region: string }>('GET', '/tools', {
      query: { connection: 'cn_eu_abc123', token: h.apiKey },
      key: null,
    })
    expect(res.text).not.toContain(h.apiKey)
    expect(res.status).toBe(421)
    expect(res.body).toMatchObject({
      region: 'eu',
      url: 'https://eu.unigate.example/tools?connection=cn_eu_abc123',
    })
    expect(res.body.message).toContain('Use https://eu.unigate.example/tools?connection=cn_eu_abc123')
    const mcp = await h.api('POST', '/mcp', {
      query: { connection: 'cn_au_abc123' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    expect(mcp.status).toBe(421)
    expect(mcp.body).toMatchObject({ message: expect.stringContaining('no address is configured for au') })
  })

  it('records every tool call as an API call of type mcp, listed with the SDK’s filters', async () => {
    const client = await connectMcp(h.url, { apiKey: h.apiKey, params: { token: 'ignored-when-header-set' } })
    await client.callTool({ name: 'list_unified_integrations', arguments: {} })
    await client.callTool({ name: 'get_unified_connection', arguments: { id: 'cn_na_gone' } })
    await client.close()
    const calls = await h.api<Record<string, unknown>[]>('GET', '/unified/apicall', {
      query: { type: 'mcp', limit: 50 },
    })
    expect(calls.status).toBe(200)
    const failed = calls.body.find((c) => c.name === 'get_unified_connection' && c.status === '404')
    expect(failed).toMatchObject({
      type: 'mcp',
      method: 'GET',
      path: 'GET /unified/connection/{id}',
      error: 'connection cn_na_gone not found',
      integration_type: 'unified',
      workspace_id: h.workspaceId,
      is_billable: false,
      environment: 'Production',
    })
    const errors = await h.api<{ status: string }[]>('GET', '/unified/apicall', { query: { error: 'true' } })
    expect(errors.body.length).toBeGreaterThan(0)
    expect(errors.body.every((c) => Number(c.status) >= 400)).toBe(true)
    const one = await h.api('GET', `/unified/apicall/${String(failed!.id)}`)
    expect(one.body).toEqual(failed)
    const other = await h.otherWorkspace()
    expect((await h.api('GET', `/unified/apicall/${String(failed!.id)}`, { key: other.apiKey })).status).toBe(
      404,
    )
    const bad = await h.api('GET', '/unified/apicall', { query: { colour: 'red' } })
    expect(bad.status).toBe(400)
  })

  it('lists workspace notifications through list_unified_notifications', async () => {
    await h.services.webhooks.notifications.record(
      {
        workspace_id: h.workspaceId,
        event: 'WEBHOOK_UNHEALTHY',
        description: 'webhook wh_test failed 3 times',
        webhook_id: 'wh_test',
      },
      new Date().toISOString(),
    )
    const client = await connectMcp(h.url, {
      apiKey: h.apiKey,
      params: { permissions: 'unified_notification_read' },
    })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['list_unified_notifications'])
    expect(tools[0]!.inputSchema.properties).toMatchObject({
      limit: expect.any(Object),
      updated_gte: expect.any(Object),
    })
    expect(tools[0]!.annotations).toMatchObject({ readOnlyHint: true })
    const listed = await client.callTool({ name: 'list_unified_notifications', arguments: { limit: 10 } })
    expect(listed.isError).toBeFalsy()
    const api = await h.api('GET', '/unified/notification', { query: { limit: 10 } })
    expect(JSON.parse(text(listed))).toEqual(api.body)
    expect(JSON.parse(text(listed))).toEqual([
      expect.objectContaining({ event: 'WEBHOOK_UNHEALTHY', webhook_id: 'wh_test' }),
    ])
    const bad = await client.callTool({
      name: 'list_unified_notifications',
      arguments: { updated_gte: 'yesterday' },
    })
    expect(bad.isError).toBe(true)
    await client.close()
    const other = await h.otherWorkspace()
    const foreign = await h.api('POST', '/tools/list_unified_notifications/call', {
      key: other.apiKey,
      body: {},
    })
    expect(foreign.body).toEqual([])
  })

  it('GET /tools?type=… matches each vendor’s documented tool schema', async () => {
    for (const [type, schema] of Object.entries(VENDOR_SCHEMAS)) {
      const res = await h.api('GET', '/tools', { query: { type } })
      expect(res.status, type).toBe(200)
      expect(schemaErrors(schema, res.body), type).toEqual([])
    }
    const bad = await h.api('GET', '/tools', { query: { type: 'llama' } })
    expect(bad.status).toBe(400)
  })

  it('answers GET /tools with type given twice with a 400 naming it (it was a 500)', async () => {
    const res = await h.api<{ message: string }>('GET', '/tools', { query: { type: ['openai', 'gemini'] } })
    expect(res.status, res.text).toBe(400)
    expect(res.body.message).toBe('type must be given once')
  })

  it('answers 405 to GET /mcp: the server is stateless and opens no stream', async () => {
    const res = await h.api('GET', '/mcp')
    expect(res.status).toBe(405)
  })

  it('answers malformed params with -32602 naming them, and an empty batch with -32600', async () => {
    const headers = { accept: 'application/json, text/event-stream' }
    const cases: [unknown, number, number, string][] = [
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} },
        200,
        -32602,
        "Invalid params: params.name must be a string, the tool's name",
      ],
      [
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: [] } },
        200,
        -32602,
        'Invalid params: params.arguments must be an object of the tool’s arguments',
      ],
      [
        { jsonrpc: '2.0', id: 3, method: 'initialize' },
        200,
        -32602,
        'Invalid params: initialize needs params, an object with protocolVersion',
      ],
      [[], 400, -32600, 'Invalid Request: an empty batch'],
    ]
    for (const [body, status, code, message] of cases) {
      const res = await h.api<{ error: { code: number; message: string }; id: unknown }>('POST', '/mcp', {
        headers,
        body,
      })
      expect(res.status, JSON.stringify(body)).toBe(status)
      expect(res.body.error).toEqual({ code, message })
      expect(res.body.id).toBe(Array.isArray(body) ? null : (body as { id: number }).id)
    }
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'

/**
 * Input an outside sweep of every route found answered 500 or stored without bound (a helper session sent
 * some 26,000 malformed requests): each is now a 400 naming the parameter, or, for a change with nothing
 * to change, the record as it is.
 */
/** The 400 a caller sees, whole. */
const refused = (message: string) => ({ statusCode: 400, error: 'Bad Request', message })

describe("a caller's malformed input is a 400 naming it, never a 500", () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness('sqlite')
  })
  afterAll(async () => {
    await h?.close()
  })

  it('refuses a limit or offset that coercion makes infinite (1e309), on every list route', async () => {
    for (const path of [
      '/unified/connection',
      '/unified/webhook',
      '/unified/notification',
      '/unified/apicall',
    ]) {
      for (const name of ['limit', 'offset']) {
        const res = await h.api<{ message: string }>('GET', path, { query: { [name]: '1e309' } })
        expect(res.status, `${path}?${name}=1e309: ${res.text}`).toBe(400)
        expect(res.body.message).toBe(
          name === 'limit'
            ? 'limit must be an integer from 1 to 1000'
            : 'offset must be an integer from 0 to 100000',
        )
      }
    }
  })

  it('reads integer query parameters as decimal text only, and names the range the schema allows', async () => {
    // Ajv coerced these as JavaScript's Number does: 0x10 was a page of 16.
    for (const limit of ['0x10', '1e2', ' 16', '0b1', '1.5', 'abc', '', '-1', '1001', '1'.repeat(400)]) {
      const res = await h.api('GET', '/unified/connection', { query: { limit } })
      expect(res.status, `limit=${limit}`).toBe(400)
      expect(res.body, `limit=${limit}`).toEqual(refused('limit must be an integer from 1 to 1000'))
    }
    const offset = await h.api<{ message: string }>('GET', '/unified/apicall', { query: { offset: '-1' } })
    expect(offset.status).toBe(400)
    expect(offset.body.message).toBe('offset must be an integer from 0 to 100000')
    // Given twice, even each in range: said so, not the range the value is in already.
    const twice = await fetch(`${h.url}/unified/connection?limit=1&limit=2`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    })
    expect(twice.status).toBe(400)
    expect(await twice.json()).toEqual(refused('limit must be given once'))
    // What the SDK sends: plain decimal numbers.
    for (const limit of ['16', '007', '1000']) {
      const res = await h.api('GET', '/unified/connection', { query: { limit, offset: '0' } })
      expect(res.status, `limit=${limit}`).toBe(200)
    }
  })

  it('answers a body of a type the API does not read with a 415 naming the type to send', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${h.url}/unified/connection`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': type },
        body: 'integration_type=posthog',
      })
      expect(res.status, type).toBe(415)
      expect(await res.json()).toEqual({
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: `content-type ${type} is not read here; send the body as application/json`,
      })
    }
    // The caller's header is named back no longer than a media type reasonably is.
    const long = await fetch(`${h.url}/unified/connection`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': `text/${'x'.repeat(5000)}` },
      body: '{}',
    })
    expect(long.status).toBe(415)
    expect(((await long.json()) as { message: string }).message).toBe(
      `content-type text/${'x'.repeat(95)} is not read here; send the body as application/json`,
    )
  })

  it('names a tool argument as itself, not as a query parameter, with the range it allows', async () => {
    for (const limit of [-1, 100_000, 1.5, '0x10']) {
      const res = await h.api('POST', '/tools/list_unified_connections/call', { body: { limit } })
      expect(res.status, `limit ${limit}`).toBe(400)
      expect(res.body, `limit ${limit}`).toEqual(refused('limit must be an integer from 1 to 1000'))
    }
    const body = { connection_id: 'cn_x', object_type: 'analytics_visitor', event: 'created', interval: 0 }
    const tool = await h.api<{ message: string }>('POST', '/tools/create_unified_webhook/call', { body })
    expect(tool.status).toBe(400)
    expect(tool.body.message).toBe('interval must be an integer from 1 to 525600')
  })

  it('answers a connection change with nothing to change with the connection as it is', async () => {
    const { id } = await h.services.connectionStore.insert({
      id: 'cn_bounds_1',
      workspace_id: h.workspaceId,
      integration_type: 'fathom',
      categories: ['analytics'],
      permissions: [],
      environment: 'Production',
      credentials: { api_key: 'x' },
      settings: {},
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    })
    const before = await h.api<Record<string, unknown>>('GET', `/unified/connection/${id}`)
    for (const [method, body] of [
      ['PATCH', {}],
      ['PUT', { workspace_id: 'ws_someone_else' }],
    ] as const) {
      const res = await h.api<Record<string, unknown>>(method, `/unified/connection/${id}`, { body })
      expect(res.status, `${method} ${JSON.stringify(body)}: ${res.text}`).toBe(200)
      expect(res.body).toEqual(before.body)
    }
  })

  it('refuses a body holding a lone surrogate, naming its field, before anything is sent anywhere', async () => {
    const workspace = await h.api<{ message: string }>('PATCH', '/unified/workspace', {
      body: '{"name":"x\\ud800y"}',
    })
    expect(workspace.status).toBe(400)
    expect(workspace.body.message).toMatch(/^name: holds a lone UTF-16 surrogate/)
    const connection = await h.api<{ message: string }>('POST', '/unified/connection', {
      body: '{"integration_type":"fathom","auth":{"api_key":"\\udc00"}}',
    })
    expect(connection.status).toBe(400)
    expect(connection.body.message).toMatch(/^auth: holds a lone UTF-16 surrogate/)
    // A pair is text like any other.
    const paired = await h.api<{ name: string }>('PATCH', '/unified/workspace', {
      body: '{"name":"smile \\ud83d\\ude00"}',
    })
    expect(paired.status, paired.text).toBe(200)
    expect(paired.body.name).toBe('smile \u{1F600}')
  })

  it('bounds what a workspace stores: its redirect origins and an OAuth app', async () => {
    const origins = Array.from({ length: 101 }, (_, i) => `https://app${i}.example.com`)
    const many = await h.api<{ message: string }>('PATCH', '/unified/workspace', {
      body: { allowed_redirect_origins: origins },
    })
    expect(many.status).toBe(400)
    expect(many.body.message).toBe('allowed_redirect_origins must NOT have more than 100 items')
    const app = await h.api<{ message: string }>('PUT', '/unified/workspace/oauth_app/hubspot', {
      body: { client_id: 'c'.repeat(4097), client_secret: 's' },
    })
    expect(app.status).toBe(400)
    expect(app.body.message).toBe('client_id must NOT have more than 4096 characters')
  })

  it('refuses an auth value longer than any key or address, without echoing it', async () => {
    const long = 'k'.repeat(16_385)
    const res = await h.api<{ message: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fathom', auth: { api_key: long } },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('auth.api_key: at most 16384 characters')
  })

  it("answers the router's refusals (an id too long, a %-escape that does not decode) in the error shape, without the path", async () => {
    const long = await h.api('GET', `/unified/connection/${'secret'.repeat(100)}`)
    expect(long.status).toBe(414)
    expect(long.body).toEqual({
      statusCode: 414,
      error: 'URI Too Long',
      message: 'a path segment (an id) is longer than 500 characters, the most this server reads',
    })
    for (const path of ['/unified/connection/secret%E0%A4%A', '/analytics/cn_secret/event/%E0']) {
      const bad = await h.api('GET', path)
      expect(bad.status, path).toBe(400)
      expect(bad.body).toEqual(
        refused('the path holds a %-escape that is not UTF-8 text (such as %E0 alone)'),
      )
    }
  })

  it('names a __proto__ or constructor.prototype key in a body, rather than calling the JSON invalid', async () => {
    const proto = await h.api('PATCH', '/unified/workspace', { body: '{"__proto__":{"name":"x"}}' })
    expect(proto.status).toBe(400)
    expect(proto.body).toEqual(
      refused(
        "body: holds a key named __proto__, which request bodies may not have: it would set an object's prototype",
      ),
    )
    const ctor = await h.api('POST', '/unified/connection', {
      body: '{"integration_type":"fathom","auth":{"constructor":{"prototype":{"x":1}}}}',
    })
    expect(ctor.status).toBe(400)
    expect(ctor.body).toEqual(
      refused(
        "auth: holds a constructor object with a prototype key, which request bodies may not have: it would reach an object's prototype",
      ),
    )
    // Text that is not JSON is still called so.
    const broken = await h.api<{ message: string }>('PATCH', '/unified/workspace', { body: '{"__proto__":' })
    expect(broken.status).toBe(400)
    expect(broken.body.message).toBe("Body is not valid JSON but content-type is set to 'application/json'")
  })

  it("keeps at most 512 characters of a tool call's error and user agent in its API-call record", async () => {
    // An unknown argument is named in the error: a 900 KB name was kept whole in every record, and a list
    // of 100 such records was a 90 MB answer.
    const name = 'x'.repeat(900_000)
    const call = await h.api<{ message: string }>('POST', '/tools/list_unified_connections/call', {
      body: { [name]: 1 },
      headers: { 'user-agent': 'U'.repeat(15_000) },
    })
    expect(call.status).toBe(400)
    await h.services.apiCalls.flush()
    const calls = await h.api<{ error?: string; user_agent?: string }[]>('GET', '/unified/apicall', {
      query: { type: 'mcp', limit: 1 },
    })
    expect(calls.status).toBe(200)
    expect(calls.body[0]?.error).toBe(call.body.message.slice(0, 512))
    expect(calls.body[0]?.user_agent).toBe('U'.repeat(512))
  })
})

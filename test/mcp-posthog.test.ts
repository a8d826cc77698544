import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { isPersonalKey } from '../src/mcp/sensitive.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp, toolText as text } from './support/mcp-client.js'

// PostHog as src/integrations/posthog/definition.ts defines it, whether or not the shared registry lists it yet.

type Rec = Record<string, unknown>

/** Every key anywhere in a value, paths included, to prove what hide_sensitive left. */
function keysOf(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keysOf(v, `${path}[${i}]`))
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...keysOf(v, `${path}.${k}`)])
  return []
}

describe('tool server for a PostHog connection, against the PostHog emulator', () => {
  let h: Harness
  let emu: PosthogEmulator
  let connectionId: string

  beforeAll(async () => {
    emu = await startPosthogEmulator({
      seed: 3,
      size: { events: 300 },
      until: new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString(),
    })
    h = await startHarness('sqlite')
    const res = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emu.url } },
    })
    expect(res.status).toBe(200)
    connectionId = res.body.id
  })
  afterAll(async () => {
    await h?.close()
    await emu?.close()
  })

  const connect = (params: Record<string, string> = {}, protocolVersion?: string) =>
    connectMcp(h.url, {
      apiKey: h.apiKey,
      params: { connection: connectionId, ...params },
      ...(protocolVersion ? { protocolVersion } : {}),
    })

  it('lists PostHog’s tools and reads events and visitors through them', async () => {
    const client = await connect()
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining(['list_analytics_events', 'list_analytics_visitors', 'get_analytics_visitor']),
    )
    const events = JSON.parse(
      text(
        await client.callTool({
          name: 'list_analytics_events',
          arguments: { limit: 3, fields: ['id', 'name'] },
        }),
      ),
    ) as Rec[]
    expect(events).toHaveLength(3)
    expect(Object.keys(events[0]!).sort()).toEqual(['id', 'name'])
    await client.close()
  })

  it('hide_sensitive removes visitors’ emails and names, also inside raw', async () => {
    const fields = ['id', 'email', 'name', 'country', 'raw']
    const plain = await connect()
    const full = JSON.parse(
      text(await plain.callTool({ name: 'list_analytics_visitors', arguments: { limit: 20, fields } })),
    ) as Rec[]
    await plain.close()
    const withEmail = full.filter((v) => typeof v.email === 'string')
    expect(withEmail.length).toBeGreaterThan(0)
    expect(JSON.stringify(full.map((v) => v.raw))).toContain(String(withEmail[0]!.email))

    const client = await connect({ hide_sensitive: 'true' })
    const hidden = await client.callTool({
      name: 'list_analytics_visitors',
      arguments: { limit: 20, fields },
    })
    const visitors = JSON.parse(text(hidden)) as Rec[]
    expect(visitors.map((v) => v.id)).toEqual(full.map((v) => v.id))
    for (const v of visitors) {
      expect(v).not.toHaveProperty('email')
      expect(v).not.toHaveProperty('name')
      expect(v.raw).toBeDefined()
      expect(keysOf(v.raw).filter((k) => isPersonalKey(k.split('.').pop()!))).toEqual([])
    }
    const serialized = text(hidden)
    for (const v of withEmail) expect(serialized).not.toContain(String(v.email))
    // structuredContent carries the same redacted data.
    expect(JSON.stringify(hidden.structuredContent)).not.toContain(String(withEmail[0]!.email))
    await client.close()
  })

  it('switches structuredContent on the client’s protocol version', async () => {
    for (const [version, expected] of [
      ['2025-06-18', true],
      ['2025-03-26', false],
    ] as const) {
      const client = await connect({}, version)
      const result = await client.callTool({ name: 'list_analytics_events', arguments: { limit: 1 } })
      expect('structuredContent' in result, version).toBe(expected)
      await client.close()
    }
  })

  it('include_external_tools adds PostHog endpoints outside the model, called with the connection’s auth', async () => {
    const client = await connect({ include_external_tools: 'true', tools: 'posthog_run_hogql_query' })
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['posthog_run_hogql_query'])
    emu.clearRequests()
    const result = await client.callTool({
      name: 'posthog_run_hogql_query',
      arguments: {
        query: { kind: 'HogQLQuery', query: 'SELECT event, count() FROM events GROUP BY event LIMIT 5' },
      },
    })
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(text(result))).toMatchObject({ results: expect.any(Array) })
    const sent = emu.requests().at(-1)!
    expect(sent.path).toMatch(/^\/api\/projects\/\d+\/query\/?$/)
    expect(sent.headers.authorization).toBe(`Bearer ${DEFAULT_PERSONAL_API_KEY}`)
    const bad = await client.callTool({
      name: 'posthog_run_hogql_query',
      arguments: { query: { kind: 'HogQLQuery', query: 'SELEC nonsense' } },
    })
    expect(bad.isError).toBe(true)
    expect(text(bad)).toMatch(/PostHog/)
    await client.close()
  })

  it('update_person_property sets a property on a person at PostHog, readable through the unified visitor', async () => {
    const client = await connect({ include_external_tools: 'true', tools: 'posthog_update_person_property' })
    const visitors = await h.api<Rec[]>('GET', `/analytics/${connectionId}/visitor`, {
      query: { limit: 1, fields: 'id,raw' },
    })
    const person = visitors.body[0]!
    const personUuid = String((person.raw as Rec).__id ?? (person.raw as Rec).uuid)
    emu.clearRequests()
    const result = await client.callTool({
      name: 'posthog_update_person_property',
      arguments: { person_id: personUuid, key: 'plan', value: 'enterprise' },
    })
    expect(result.isError, text(result)).toBeFalsy()
    const sent = emu.requests().at(-1)!
    expect(sent.method).toBe('POST')
    expect(sent.path).toMatch(/^\/api\/projects\/\d+\/persons\/[^/]+\/update_property\/$/)
    expect(sent.body).toEqual({ key: 'plan', value: 'enterprise' })
    const after = await h.api<Rec>(
      'GET',
      `/analytics/${connectionId}/visitor/${encodeURIComponent(String(person.id))}`,
      {
        query: { fields: 'id,raw' },
      },
    )
    expect(((after.body.raw as Rec).properties as Rec).plan).toBe('enterprise')
    await client.close()
  })

  it('offers and runs external tools only within the connection’s grant: a read-only connection cannot write', async () => {
    const connectWith = async (permissions: string[]) => {
      const res = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: {
          integration_type: 'posthog',
          permissions,
          auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emu.url },
        },
      })
      expect(res.status, res.text).toBe(200)
      return res.body.id
    }
    const reads = ['event', 'visitor', 'session', 'property', 'report'].map((o) => `analytics_${o}_read`)
    const readOnly = await connectWith(reads)
    const eventsOnly = await connectWith(['analytics_event_read'])
    const listed = async (connection: string) => {
      const res = await h.api<{ id: string }[]>('GET', '/tools', {
        query: { connection, include_external_tools: 'true' },
      })
      expect(res.status).toBe(200)
      return res.body.map((t) => t.id)
    }
    const readOnlyTools = await listed(readOnly)
    expect(readOnlyTools).toContain('posthog_run_hogql_query')
    expect(readOnlyTools).not.toContain('posthog_update_person_property')
    expect(readOnlyTools.filter((t) => /^(create|update|patch|remove)_/.test(t))).toEqual([])
    // HogQL reads events, persons and sessions: the event grant alone does not cover it.
    expect((await listed(eventsOnly)).filter((t) => t.startsWith('posthog_'))).toEqual([])

    emu.clearRequests()
    const args = { person_id: 'anyone', key: 'plan', value: 'free' }
    const refused = await h.api<{ statusCode: number; message: string }>(
      'POST',
      '/tools/posthog_update_person_property/call',
      { query: { connection: readOnly, include_external_tools: 'true' }, body: args },
    )
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('analytics_visitor_write')
    const unified = await h.api<{ message: string }>('POST', '/tools/create_analytics_event/call', {
      query: { connection: readOnly },
      body: { name: 'x' },
    })
    expect(unified.status).toBe(403)
    expect(unified.body.message).toContain('analytics_event_write')

    const client = await connectMcp(h.url, {
      apiKey: h.apiKey,
      params: { connection: readOnly, include_external_tools: 'true' },
    })
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toContain('posthog_run_hogql_query')
    expect(names).not.toContain('posthog_update_person_property')
    const overMcp = await client.callTool({ name: 'posthog_update_person_property', arguments: args })
    expect(overMcp.isError).toBe(true)
    expect(text(overMcp)).toContain('analytics_visitor_write')
    await client.close()
    expect(emu.requests().filter((r) => r.path.includes('update_property'))).toEqual([])

    // The write grant opens it again.
    const writer = await connectWith([...reads, 'analytics_visitor_write'])
    expect(await listed(writer)).toContain('posthog_update_person_property')
  })

  it('records PostHog tool calls for the workspace', async () => {
    const calls = await h.api<Rec[]>('GET', '/unified/apicall', {
      query: { connection_id: connectionId, integration_type: 'posthog', type: 'mcp' },
    })
    expect(calls.body.map((c) => c.name)).toEqual(
      expect.arrayContaining(['list_analytics_events', 'list_analytics_visitors', 'posthog_run_hogql_query']),
    )
    expect(calls.body.every((c) => c.connection_id === connectionId)).toBe(true)
  })
})

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_UMAMI_LOGIN_TOKEN,
  startUmamiEmulator,
  type UmamiEmulator,
} from '../emulators/umami/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp } from './support/mcp-client.js'

type Text = { type: string; text: string }
const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Text[])[0]!.text

/** The tool server against a real integration and its emulator: Umami (websites, events, sessions, reports). */
describe('tool server for an Umami connection', () => {
  let h: Harness
  let emu: UmamiEmulator
  let connectionId: string
  let client: Client

  beforeAll(async () => {
    emu = await startUmamiEmulator({ seed: 7, websites: 3, sessions: 20 })
    h = await startHarness('sqlite')
    const res = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      },
    })
    expect(res.status).toBe(200)
    connectionId = res.body.id
    client = await connectMcp(h.url, { apiKey: h.apiKey, params: { connection: connectionId } })
  })
  afterAll(async () => {
    await client?.close()
    await h?.close()
    await emu?.close()
  })
  beforeEach(() => emu.clearFaults())

  it('offers exactly the operations Umami’s definition implements', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining([
        'list_analytics_properties',
        'get_analytics_property',
        'create_analytics_property',
        'update_analytics_property',
        'patch_analytics_property',
        'remove_analytics_property',
        'list_analytics_events',
        'create_analytics_event',
        'list_analytics_sessions',
        'list_analytics_reports',
      ]),
    )
    // Umami cannot read one event or anything about visitors: no tool pretends it can.
    expect(names).not.toContain('get_analytics_event')
    expect(names.some((n) => n.includes('visitor'))).toBe(false)
    const listProperties = tools.find((t) => t.name === 'list_analytics_properties')!
    expect(listProperties.inputSchema.properties).toMatchObject({
      sort: { type: 'string', enum: ['name', 'created_at'] },
      query: { type: 'string' },
    })
  })

  it('returns what the API returns for the same operation', async () => {
    const viaTool = await client.callTool({
      name: 'list_analytics_properties',
      arguments: { fields: ['id', 'name'] },
    })
    const viaApi = await h.api('GET', `/analytics/${connectionId}/property`, { query: { fields: 'id,name' } })
    expect(JSON.parse(text(viaTool))).toEqual(viaApi.body)
    const first = (viaApi.body as { id: string }[])[0]!
    const one = await client.callTool({ name: 'get_analytics_property', arguments: { id: first.id } })
    expect(one.structuredContent).toMatchObject({ id: first.id })
  })

  it('turns a provider failure into a tool error with the API’s message', async () => {
    emu.fault({ status: 500, pathPattern: '/websites$' })
    const viaApi = await h.api<{ message: string }>('GET', `/analytics/${connectionId}/property`)
    emu.fault({ status: 500, pathPattern: '/websites$' })
    const viaTool = await client.callTool({ name: 'list_analytics_properties', arguments: {} })
    expect(viaApi.status).toBe(502)
    expect(viaTool).toMatchObject({ isError: true, content: [{ type: 'text', text: viaApi.body.message }] })
    expect(viaTool.structuredContent).toMatchObject({ statusCode: 502, message: viaApi.body.message })
  })

  it('lists sessions without property_id as REST does: the error names the websites to choose from', async () => {
    const { tools } = await client.listTools()
    const sessions = tools.find((t) => t.name === 'list_analytics_sessions')!
    expect(sessions.inputSchema.required ?? []).not.toContain('property_id')
    const viaApi = await h.api<{ message: string }>('GET', `/analytics/${connectionId}/session`)
    const viaTool = await client.callTool({ name: 'list_analytics_sessions', arguments: { limit: 2 } })
    expect(viaApi.status).toBe(400)
    expect(viaTool).toMatchObject({ isError: true, content: [{ type: 'text', text: viaApi.body.message }] })
    for (const id of emu.state.websites.keys()) expect(text(viaTool)).toContain(id)
  })
})

describe('tool server for a one-website Umami connection', () => {
  let h: Harness
  let emu: UmamiEmulator
  let client: Client

  beforeAll(async () => {
    emu = await startUmamiEmulator({ seed: 7, websites: 1, sessions: 5 })
    h = await startHarness('sqlite')
    const res = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'umami',
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emu.url}/api` },
      },
    })
    expect(res.status).toBe(200)
    client = await connectMcp(h.url, { apiKey: h.apiKey, params: { connection: res.body.id } })
  })
  afterAll(async () => {
    await client?.close()
    await h?.close()
    await emu?.close()
  })

  it('lists sessions with no property_id, in the only website', async () => {
    const result = await client.callTool({ name: 'list_analytics_sessions', arguments: { limit: 2 } })
    expect(result.isError, text(result)).toBeFalsy()
    expect(Array.isArray(JSON.parse(text(result)))).toBe(true)
    const [only] = [...emu.state.websites.keys()]
    const asked = emu.requests().filter((r) => r.path.includes('/sessions'))
    expect(asked.at(-1)?.path).toContain(String(only))
  })
})

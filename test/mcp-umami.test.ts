import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_UMAMI_LOGIN_TOKEN,
  startUmamiEmulator,
  type UmamiEmulator,
} from '../emulators/umami/index.js'
import type { Harness } from './support/harness.js'
import { expectToolsAnswerAsApi, toolText as text, useMcpConnectionSuite } from './support/mcp-client.js'

const umamiConnection = (emulator: UmamiEmulator) => ({
  integration_type: 'umami',
  auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${emulator.url}/api` },
})

/** The tool server against a real integration and its emulator: Umami (websites, events, sessions, reports). */
describe('tool server for an Umami connection', () => {
  let h: Harness
  let emu: UmamiEmulator
  let connectionId: string
  let client: Client

  useMcpConnectionSuite({
    start: () => startUmamiEmulator({ seed: 7, websites: 3, sessions: 20 }),
    connection: umamiConnection,
    ready: (suite) => {
      h = suite.h
      emu = suite.emulator
      connectionId = suite.connectionId
      client = suite.client
    },
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
    await expectToolsAnswerAsApi(
      client,
      h,
      { list: 'list_analytics_properties', get: 'get_analytics_property' },
      `/analytics/${connectionId}/property`,
      { fields: ['id', 'name'] },
    )
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
  let emu: UmamiEmulator
  let client: Client

  useMcpConnectionSuite({
    start: () => startUmamiEmulator({ seed: 7, websites: 1, sessions: 5 }),
    connection: umamiConnection,
    ready: (suite) => {
      emu = suite.emulator
      client = suite.client
    },
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

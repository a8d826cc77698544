import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_HUBSPOT_TOKEN,
  type HubspotEmulator,
  startHubspotEmulator,
} from '../emulators/hubspot/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectMcp } from './support/mcp-client.js'

type Text = { type: string; text: string }
const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Text[])[0]!.text

/** The tool server on a CRM connection: HubSpot's contacts, under CRM tool names, as the REST API serves them. */
describe('tool server for a HubSpot connection', () => {
  let h: Harness
  let emu: HubspotEmulator
  let connectionId: string
  let client: Client

  beforeAll(async () => {
    emu = await startHubspotEmulator({ seed: 8, contacts: 12 })
    h = await startHarness('sqlite')
    const res = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'hubspot', auth: { token: DEFAULT_HUBSPOT_TOKEN, api_url: emu.url } },
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

  it('offers the contact operations with the filters and sorts HubSpot serves, and nothing analytic', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining([
        'list_crm_contacts',
        'get_crm_contact',
        'create_crm_contact',
        'update_crm_contact',
        'patch_crm_contact',
        'remove_crm_contact',
      ]),
    )
    expect(names.some((n) => n.includes('analytics'))).toBe(false)
    const list = tools.find((t) => t.name === 'list_crm_contacts')!
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['company_id', 'deal_id', 'user_id', 'updated_gte', 'query']),
    )
  })

  it('returns what the API returns for the same list and read', async () => {
    const viaTool = await client.callTool({
      name: 'list_crm_contacts',
      arguments: { fields: ['id', 'name', 'emails'], limit: 5 },
    })
    const viaApi = await h.api('GET', `/crm/${connectionId}/contact`, {
      query: { fields: 'id,name,emails', limit: 5 },
    })
    expect(JSON.parse(text(viaTool))).toEqual(viaApi.body)
    const first = (viaApi.body as { id: string }[])[0]!
    const one = await client.callTool({ name: 'get_crm_contact', arguments: { id: first.id } })
    expect(one.structuredContent).toMatchObject({ id: first.id })
  })
})

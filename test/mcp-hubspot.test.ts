import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from '../emulators/hubspot/index.js'
import type { Harness } from './support/harness.js'
import { expectToolsAnswerAsApi, useMcpConnectionSuite } from './support/mcp-client.js'

/** The tool server on a CRM connection: HubSpot's contacts, under CRM tool names, as the REST API serves them. */
describe('tool server for a HubSpot connection', () => {
  let h: Harness
  let connectionId: string
  let client: Client

  useMcpConnectionSuite({
    start: () => startHubspotEmulator({ seed: 8, contacts: 12 }),
    connection: (emulator) => ({
      integration_type: 'hubspot',
      auth: { token: DEFAULT_HUBSPOT_TOKEN, api_url: emulator.url },
    }),
    ready: (suite) => {
      h = suite.h
      connectionId = suite.connectionId
      client = suite.client
    },
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
    await expectToolsAnswerAsApi(
      client,
      h,
      { list: 'list_crm_contacts', get: 'get_crm_contact' },
      `/crm/${connectionId}/contact`,
      { fields: ['id', 'name', 'emails'], limit: 5 },
    )
  })
})

import { describe, expect, it } from 'vitest'
import { fixtureConnection, fixtureIntegration, noStoreResolver } from '../../test/support/mcp-fixture.js'
import type { IntegrationDefinition } from '../integrations/types.js'
import { connectionTools } from './connection-tools.js'
import { formatTools } from './vendor-formats.js'

/** An in-memory HRIS integration: employees listed (company_id only) and created. */
const hrisFixture: IntegrationDefinition = {
  ...fixtureIntegration,
  type: 'hris_fixture',
  name: 'HRIS Fixture',
  categories: ['hris'],
  externalTools: [],
  objects: {
    hris_employee: {
      listParams: [],
      filters: ['company_id'],
      list: async (_ctx, q) =>
        [
          { id: 'e1', name: 'Ada', company_id: 'c1', emails: [{ email: 'ada@example.com', type: 'WORK' }] },
          { id: 'e2', name: 'Alan', company_id: 'c2' },
        ].filter((e) => !q.filters.company_id || e.company_id === q.filters.company_id),
      create: async (_ctx, body) => ({ id: 'e-new', ...body }),
    },
  },
}

const deps = { resolver: noStoreResolver, slowFieldsOptIn: false }
const tools = (permissions = ['hris_employee_read', 'hris_employee_write']) =>
  connectionTools(fixtureConnection(permissions, hrisFixture), deps)
const tool = (name: string) => {
  const t = tools().find((x) => x.name === name)
  if (!t) throw new Error(`no tool ${name}`)
  return t
}

describe('tools of a category other than analytics, generated from the same models', () => {
  it('are named after the HRIS operations and need the HRIS permissions', () => {
    expect(tools().map((t) => [t.name, t.permission, t.route])).toEqual([
      ['list_hris_employees', 'hris_employee_read', '/hris/{connection_id}/employee'],
      ['create_hris_employee', 'hris_employee_write', '/hris/{connection_id}/employee'],
    ])
    expect(tools(['hris_employee_read']).map((t) => t.name)).toEqual(['list_hris_employees'])
  })

  it('offer only the filters the integration applies, and the model’s nested shapes on write', () => {
    const list = tool('list_hris_employees').inputSchema.properties
    expect(list.company_id).toBeDefined()
    expect(list.group_id).toBeUndefined()
    const create = tool('create_hris_employee').inputSchema.properties
    expect(create.emails?.items?.required).toEqual(['email'])
    expect(create.employment_status?.enum).toEqual(['ACTIVE', 'INACTIVE'])
    expect(create.id).toBeUndefined()
  })

  it('convert to every vendor format (Gemini included) without losing the nested objects', () => {
    const [gemini] = formatTools(
      tools().map((t) => ({ ...t, deferred: false })),
      'gemini',
    ) as {
      functionDeclarations: { name: string; parameters: { properties: Record<string, unknown> } }[]
    }[]
    const create = gemini!.functionDeclarations.find((d) => d.name === 'create_hris_employee')!
    expect(create.parameters.properties.emails).toMatchObject({
      type: 'ARRAY',
      items: { type: 'OBJECT', required: ['email'] },
    })
  })

  it('run against the integration, filtering and refusing values outside the SDK’s enums', async () => {
    await expect(tool('list_hris_employees').run({ company_id: 'c2', fields: 'id,name' })).resolves.toEqual([
      { id: 'e2', name: 'Alan' },
    ])
    await expect(
      tool('create_hris_employee').run({ name: 'Grace', employment_status: 'RETIRED' }),
    ).rejects.toThrow(/employment_status/)
    await expect(
      tool('create_hris_employee').run({ name: 'Grace', emails: [{ email: 'g@example.com' }] }),
    ).resolves.toMatchObject({ id: 'e-new', name: 'Grace', emails: [{ email: 'g@example.com' }] })
  })
})

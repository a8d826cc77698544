import { describe, expect, it } from 'vitest'
import {
  ALL_FIXTURE_PERMISSIONS,
  fixtureConnection,
  noStoreResolver,
} from '../../test/support/mcp-fixture.js'
import { ApiError } from '../errors.js'
import amplitude from '../integrations/amplitude/definition.js'
import mixpanel from '../integrations/mixpanel/definition.js'
import umami from '../integrations/umami/definition.js'
import { connectionTools } from './connection-tools.js'

const deps = { resolver: noStoreResolver, slowFieldsOptIn: false }
const toolsFor = (permissions = ALL_FIXTURE_PERMISSIONS) =>
  connectionTools(fixtureConnection(permissions), deps)
const tool = (name: string, permissions?: string[]) => {
  const t = toolsFor(permissions).find((x) => x.name === name)
  if (!t) throw new Error(`no tool ${name}`)
  return t
}

describe('connection tools generated from the models and the integration definition', () => {
  it('names one tool per operation the integration implements, and none for the others', () => {
    expect(toolsFor().map((t) => t.name)).toEqual([
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
  })

  it('offers only what the connection was granted (remove needs the API’s _write grant)', () => {
    const names = toolsFor(['analytics_visitor_read']).map((t) => t.name)
    expect(names).toEqual(['list_analytics_visitors', 'get_analytics_visitor'])
  })

  it('gives remove its own tool-server permission name', () => {
    expect(tool('remove_analytics_visitor').permission).toBe('analytics_visitor_remove')
    expect(tool('patch_analytics_visitor').permission).toBe('analytics_visitor_write')
    expect(tool('list_analytics_events').permission).toBe('analytics_event_read')
  })

  it('puts in a list schema only the filters and list parameters the integration can apply', () => {
    const props = tool('list_analytics_events').inputSchema.properties
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'updated_gte', 'property_id', 'fields', 'raw']),
    )
    for (const absent of ['session_id', 'visitor_id', 'start_gte', 'sort', 'query']) {
      expect(props).not.toHaveProperty(absent)
    }
    expect(props.fields?.description).toContain('page_url')
  })

  it('builds write schemas from the model, closed enums included, read-only fields left out', () => {
    const schema = tool('create_analytics_event').inputSchema
    expect(schema.properties.event_type).toMatchObject({
      type: 'string',
      enum: expect.arrayContaining(['PAGE_VIEW']),
    })
    expect(schema.properties).not.toHaveProperty('created_at')
    expect(schema.additionalProperties).toBe(false)
    expect(tool('patch_analytics_visitor').inputSchema.required).toEqual(['id'])
  })

  it('says in the description what the tool returns and when to use it', () => {
    expect(tool('list_analytics_events').description).toMatch(/Returns a JSON array of AnalyticsEvent/)
    expect(tool('get_analytics_event').description).toMatch(/when you know the id.*list_analytics_events/)
  })

  it('runs the operation through the engine, with filters and field selection', async () => {
    const result = await tool('list_analytics_events').run({ property_id: 'p2', fields: ['id', 'name'] })
    expect(result).toEqual([{ id: 'e2', name: 'signup' }])
    const comma = await tool('list_analytics_events').run({ fields: 'id', limit: 1 })
    expect(comma).toEqual([{ id: 'e1' }])
  })

  it('refuses an unknown argument, naming the allowed ones', async () => {
    await expect(tool('list_analytics_events').run({ session_id: 's1' })).rejects.toThrow(
      /unknown argument 'session_id'; allowed: .*property_id/,
    )
  })

  it('refuses an object where a query argument takes text, naming it (it was sent on as "[object Object]")', async () => {
    for (const args of [{ raw: { a: 1 } }, { property_id: { id: 'p2' } }, { fields: [{ id: 1 }] }]) {
      const err = await tool('list_analytics_events')
        .run(args)
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect((err as ApiError).statusCode).toBe(400)
      expect((err as ApiError).message).toMatch(
        new RegExp(`^list_analytics_events: ${Object.keys(args)[0]} `),
      )
    }
  })

  it('checks write bodies against the model', async () => {
    const err = await tool('create_analytics_event')
      .run({ name: 'x', event_type: 'NOT_A_TYPE' })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).statusCode).toBe(400)
    expect((err as ApiError).message).toContain('event_type')
    await expect(tool('create_analytics_event').run({ name: 'signup', value: 3 })).resolves.toMatchObject({
      id: 'e-new',
      name: 'signup',
      value: 3,
    })
  })

  it('accepts a free-form object given as JSON text (vendors that cannot describe one send a string)', async () => {
    const result = await tool('create_analytics_event').run({
      name: 'x',
      metadata: '{"plan":{"tier":"pro"}}',
    })
    expect(result).toMatchObject({ metadata: { plan: { tier: 'pro' } } })
  })

  it('needs the id for item operations', async () => {
    await expect(tool('get_analytics_event').run({})).rejects.toThrow("'id' is required")
    // The range read from the same schema as the API's `limit`, in the API's words.
    for (const limit of [0, 1001, '0x10', 1.5]) {
      await expect(tool('list_analytics_events').run({ limit })).rejects.toThrow(
        /^limit must be an integer from 1 to 1000$/,
      )
    }
  })
})

describe('what an integration cannot do without is required in its tools', () => {
  const umamiTools = () =>
    connectionTools(
      {
        ...fixtureConnection([
          'analytics_session_read',
          'analytics_property_write',
          'analytics_event_read',
          'analytics_event_write',
        ]),
        integration: umami,
      },
      deps,
    )
  const named = (name: string) => umamiTools().find((t) => t.name === name)

  it('describes property_id as needed with several websites, but leaves it optional: the only one is used', () => {
    const sessions = named('list_analytics_sessions')?.inputSchema
    expect(sessions?.required).toBeUndefined()
    expect(sessions?.properties.property_id?.description).toMatch(
      /Required when the connection has more than one property/,
    )
    expect(named('list_analytics_properties')?.inputSchema.required).toBeUndefined()
    const createEvent = named('create_analytics_event')?.inputSchema
    expect(createEvent?.required ?? []).not.toContain('property_id')
    expect(createEvent?.properties.property_id?.description).toMatch(/more than one property/)
  })

  it('marks the create fields Umami needs (raw.domain makes raw required)', () => {
    expect(named('create_analytics_property')?.inputSchema.required).toEqual(['name', 'raw'])
  })

  it('requires no query where the provider lists without one (Amplitude visitors, Mixpanel reports)', () => {
    for (const [integration, permission, name] of [
      [amplitude, 'analytics_visitor_read', 'list_analytics_visitors'],
      [mixpanel, 'analytics_report_read', 'list_analytics_reports'],
    ] as const) {
      const tools = connectionTools({ ...fixtureConnection([permission]), integration }, deps)
      const schema = tools.find((t) => t.name === name)?.inputSchema
      expect(schema?.properties.query).toBeDefined()
      expect(schema?.required).toBeUndefined()
    }
  })
})

import { describe, expect, it } from 'vitest'
import {
  ALL_FIXTURE_PERMISSIONS,
  fixtureConnection,
  noStoreResolver,
} from '../../test/support/mcp-fixture.js'
import { connectionTools, withheldConnectionTools } from './connection-tools.js'
import { parseAliases, parseToolServerOptions } from './options.js'
import { isDeferred, selectTools } from './selection.js'

const tools = connectionTools(fixtureConnection(ALL_FIXTURE_PERMISSIONS), {
  resolver: noStoreResolver,
  slowFieldsOptIn: false,
})
const names = (query: Record<string, string>) =>
  selectTools(tools, parseToolServerOptions(query)).map((t) => t.name)

describe('tool server URL parameters', () => {
  it('tools allows only the listed tool ids', () => {
    expect(names({ tools: 'get_analytics_event,list_analytics_visitors' })).toEqual([
      'get_analytics_event',
      'list_analytics_visitors',
    ])
  })

  it('tools refuses a name this mode does not offer, naming the parameter and the tools there are', () => {
    // It listed no tool at all, as if the connection had none.
    expect(() => names({ tools: 'get_analytics_event,no_such_tool' })).toThrow(
      `tools: 'no_such_tool' is not a tool here; allowed: ${tools.map((t) => t.name).join(', ')}`,
    )
    // A tool the connection's grant does not cover is the 403 calling it is.
    const readOnly = fixtureConnection(['analytics_event_read'])
    const offered = connectionTools(readOnly, { resolver: noStoreResolver, slowFieldsOptIn: false })
    const refusal = (() => {
      try {
        const options = parseToolServerOptions({ tools: 'create_analytics_event' })
        selectTools(offered, options, withheldConnectionTools(readOnly))
      } catch (err) {
        return err
      }
    })()
    expect(refusal).toMatchObject({
      statusCode: 403,
      message: expect.stringMatching(/^tools: tool create_analytics_event needs analytics_event_write/),
    })
  })

  it('permissions keeps read, write and remove apart', () => {
    expect(names({ permissions: 'analytics_visitor_read' })).toEqual([
      'list_analytics_visitors',
      'get_analytics_visitor',
    ])
    expect(names({ permissions: 'analytics_visitor_write' })).toEqual([
      'create_analytics_visitor',
      'update_analytics_visitor',
      'patch_analytics_visitor',
    ])
    expect(names({ permissions: 'analytics_visitor_remove' })).toEqual(['remove_analytics_visitor'])
  })

  it('refuses a malformed permission name, saying what a permission looks like', () => {
    expect(() => parseToolServerOptions({ permissions: 'analytics_event' })).toThrow(/<object>_read/)
  })

  it('aliases extend descriptions and add no tool', () => {
    const selected = selectTools(tools, parseToolServerOptions({ aliases: 'event:hit,action;visitor:user' }))
    expect(selected).toHaveLength(tools.length)
    const list = selected.find((t) => t.name === 'list_analytics_events')!
    expect(list.description).toContain('Also: list analytics hits. list analytics actions.')
    expect(selected.find((t) => t.name === 'get_analytics_visitor')!.description).toContain(
      'get analytics user',
    )
  })

  it('refuses aliases that are not word:alias lists', () => {
    expect(() => parseAliases('event')).toThrow(/word:alias1,alias2/)
  })

  it('defer_tools takes all, ids or partial ids', () => {
    const opt = (v: string) => parseToolServerOptions({ defer_tools: v }).deferTools
    expect(isDeferred('list_analytics_events', opt('all'))).toBe(true)
    expect(isDeferred('list_analytics_events', opt('visitor'))).toBe(false)
    expect(isDeferred('get_analytics_visitor', opt('visitor'))).toBe(true)
    expect(isDeferred('get_analytics_event', opt('get_analytics_event'))).toBe(true)
  })

  it('reads booleans strictly', () => {
    expect(parseToolServerOptions({ hide_sensitive: 'true' }).hideSensitive).toBe(true)
    expect(parseToolServerOptions({ include_external_tools: '1' }).includeExternalTools).toBe(true)
    expect(parseToolServerOptions({}).hideSensitive).toBe(false)
    expect(() => parseToolServerOptions({ hide_sensitive: 'yes please' })).toThrow(/true or false/)
  })
})

import { describe, expect, it } from 'vitest'
import {
  ALL_FIXTURE_PERMISSIONS,
  fixtureConnection,
  noStoreResolver,
} from '../../test/support/mcp-fixture.js'
import {
  AnthropicTool,
  CohereTool,
  DefaultTool,
  GeminiTools,
  OpenAiTool,
  schemaErrors,
} from '../../test/support/vendor-tool-schemas.js'
import { connectionTools } from './connection-tools.js'
import { formatTools, type ListedTool, parseToolFormat } from './vendor-formats.js'

const listed: ListedTool[] = connectionTools(fixtureConnection(ALL_FIXTURE_PERMISSIONS), {
  resolver: noStoreResolver,
  slowFieldsOptIn: false,
}).map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema,
  deferred: t.name.includes('visitor'),
}))

function expectValid(schema: Parameters<typeof schemaErrors>[0], value: unknown) {
  expect(schemaErrors(schema, value)).toEqual([])
}

describe('GET /tools shapes, checked against each vendor’s documented tool schema', () => {
  it('openai (and grok, groq): Chat Completions function tools', () => {
    for (const format of ['openai', 'grok', 'groq'] as const) {
      const tools = formatTools(listed, format)
      expect(tools).toHaveLength(listed.length)
      for (const tool of tools) expectValid(OpenAiTool, tool)
    }
  })

  it('anthropic: input_schema, and defer_loading on deferred tools only', () => {
    const tools = formatTools(listed, 'anthropic') as { name: string; defer_loading?: boolean }[]
    for (const tool of tools) expectValid(AnthropicTool, tool)
    expect(tools.find((t) => t.name === 'get_analytics_visitor')?.defer_loading).toBe(true)
    expect(tools.find((t) => t.name === 'get_analytics_event')).not.toHaveProperty('defer_loading')
  })

  it('gemini: one Tool with functionDeclarations in the OpenAPI subset (no additionalProperties, no empty OBJECT)', () => {
    const tools = formatTools(listed, 'gemini')
    expectValid(GeminiTools, tools)
    expect(JSON.stringify(tools)).not.toContain('additionalProperties')
    const create = (
      tools[0] as {
        functionDeclarations: { name: string; parameters: { properties: Record<string, { type: string }> } }[]
      }
    ).functionDeclarations.find((d) => d.name === 'create_analytics_event')!
    expect(create.parameters.properties.event_type).toMatchObject({ type: 'STRING', format: 'enum' })
    expect(create.parameters.properties.metadata?.type).toBe('STRING')
  })

  it('cohere: v2 function tools', () => {
    for (const tool of formatTools(listed, 'cohere')) expectValid(CohereTool, tool)
  })

  it('default: [{id, description, parameters:[{name, description, required}]}]', () => {
    const tools = formatTools(listed, 'default') as {
      id: string
      parameters: { name: string; required: boolean }[]
    }[]
    for (const tool of tools) expectValid(DefaultTool, tool)
    const get = tools.find((t) => t.id === 'get_analytics_event')!
    expect(get.parameters.find((p) => p.name === 'id')?.required).toBe(true)
    expect(get.parameters.find((p) => p.name === 'fields')?.required).toBe(false)
  })

  it('refuses an unknown type, listing the known ones', () => {
    expect(() => parseToolFormat('llama')).toThrow(/openai, anthropic, gemini, cohere/)
  })
})

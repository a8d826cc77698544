import { badRequest } from '../errors.js'
import type { JsonSchema, ObjectSchema } from './json-schema.js'

/** A tool as it is listed: already filtered, described, and marked deferred or not. */
export interface ListedTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: ObjectSchema
  readonly deferred: boolean
}

export const TOOL_FORMATS = ['default', 'openai', 'anthropic', 'gemini', 'cohere', 'grok', 'groq'] as const
export type ToolFormat = (typeof TOOL_FORMATS)[number]

/** `type`, as the query gives it: a repeated one is an array, refused like a value not known. */
export function parseToolFormat(value: unknown): ToolFormat {
  if (value === undefined || value === '') return 'default'
  if (typeof value !== 'string') throw badRequest(`type: give one of ${TOOL_FORMATS.join(', ')}, once`)
  const format = value.toLowerCase()
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) {
    throw badRequest(`type: '${value}' is not allowed; use one of ${TOOL_FORMATS.join(', ')}`)
  }
  return format as ToolFormat
}

/** `[{id, description, parameters: [{name, description, required}]}]` (the tool server's own shape). */
function defaultShape(tool: ListedTool) {
  const required = new Set(tool.inputSchema.required ?? [])
  return {
    id: tool.name,
    description: tool.description,
    parameters: Object.entries(tool.inputSchema.properties).map(([name, schema]) => ({
      name,
      description: schema.description ?? name,
      required: required.has(name),
    })),
    ...(tool.deferred ? { defer_loading: true } : {}),
  }
}

/** OpenAI Chat Completions function tool (Grok and Groq take the same shape). */
function openaiShape(tool: ListedTool) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }
}

/** Anthropic Messages API client tool; `defer_loading` works with its tool search tool. */
function anthropicShape(tool: ListedTool) {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
    ...(tool.deferred ? { defer_loading: true } : {}),
  }
}

/** Cohere Chat API v2 tool. */
function cohereShape(tool: ListedTool) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }
}

type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT'

export interface GeminiSchema {
  type: GeminiType
  description?: string
  format?: string
  enum?: string[]
  items?: GeminiSchema
  properties?: Record<string, GeminiSchema>
  required?: string[]
  minimum?: number
  maximum?: number
}

/**
 * Gemini takes an OpenAPI 3.0 subset: upper-case types, no `additionalProperties`, string formats limited
 * to `enum` and `date-time`, and an OBJECT must list its properties. A free-form object (`raw`,
 * `metadata`) is therefore declared as a string of JSON, which the tool call parses back.
 */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
  const base: Partial<GeminiSchema> = schema.description ? { description: schema.description } : {}
  switch (schema.type) {
    case 'object': {
      const props = Object.entries(schema.properties ?? {})
      if (props.length === 0) {
        return {
          type: 'STRING',
          description: `${schema.description ?? 'An object'} Give it as a JSON object in a string.`,
        }
      }
      return {
        ...base,
        type: 'OBJECT',
        properties: Object.fromEntries(props.map(([k, v]) => [k, toGeminiSchema(v)])),
        ...(schema.required?.length ? { required: [...schema.required] } : {}),
      }
    }
    case 'array':
      return { ...base, type: 'ARRAY', items: toGeminiSchema(schema.items ?? { type: 'string' }) }
    case 'integer':
    case 'number':
      return {
        ...base,
        type: schema.type === 'integer' ? 'INTEGER' : 'NUMBER',
        ...(schema.minimum !== undefined ? { minimum: schema.minimum } : {}),
        ...(schema.maximum !== undefined ? { maximum: schema.maximum } : {}),
      }
    case 'boolean':
      return { ...base, type: 'BOOLEAN' }
    default:
      if (schema.enum) return { ...base, type: 'STRING', format: 'enum', enum: [...schema.enum] }
      return { ...base, type: 'STRING', ...(schema.format === 'date-time' ? { format: 'date-time' } : {}) }
  }
}

function geminiDeclaration(tool: ListedTool) {
  const hasParameters = Object.keys(tool.inputSchema.properties).length > 0
  return {
    name: tool.name,
    description: tool.description,
    ...(hasParameters ? { parameters: toGeminiSchema(tool.inputSchema) } : {}),
  }
}

/**
 * The tool list in one vendor's format: exactly the value of that vendor's `tools` request field, so it
 * can be passed through unchanged (for Gemini, one Tool holding every function declaration).
 */
export function formatTools(tools: readonly ListedTool[], format: ToolFormat): unknown[] {
  switch (format) {
    case 'openai':
    case 'grok':
    case 'groq':
      return tools.map(openaiShape)
    case 'anthropic':
      return tools.map(anthropicShape)
    case 'cohere':
      return tools.map(cohereShape)
    case 'gemini':
      return [{ functionDeclarations: tools.map(geminiDeclaration) }]
    default:
      return tools.map(defaultShape)
  }
}

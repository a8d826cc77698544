import type { TSchema } from '@sinclair/typebox'

/** The plain JSON Schema subset tool inputs use: what every LLM vendor's tool format can express. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array'
  description?: string
  enum?: string[]
  format?: string
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  minimum?: number
  maximum?: number
}

export interface ObjectSchema extends JsonSchema {
  type: 'object'
  properties: Record<string, JsonSchema>
}

type Loose = Record<string, unknown>

/**
 * Turns a TypeBox schema from src/models into plain JSON Schema: `$id` and TypeBox internals dropped,
 * unions of literals as `enum` (models write closed enums that way), records as `additionalProperties`.
 * OpenAPI schemas generated from the same TypeBox schemas are read the same way.
 */
export function toJsonSchema(schema: TSchema | Loose): JsonSchema {
  const s = schema as Loose
  const out: JsonSchema = {}
  if (typeof s.description === 'string') out.description = s.description
  if (Array.isArray(s.enum)) return { type: 'string', ...out, enum: s.enum.map(String) }
  const anyOf = s.anyOf as Loose[] | undefined
  if (anyOf) {
    // TypeBox writes a literal as `const`; OpenAPI documents generated from it as a one-value `enum`.
    const literals = anyOf.map((x) => (Array.isArray(x.enum) && x.enum.length === 1 ? x.enum[0] : x.const))
    if (literals.every((v) => typeof v === 'string'))
      return { ...out, type: 'string', enum: literals as string[] }
    // Other unions (metadata values: text, a number, a flag or an object) are described as their first member.
    return { ...toJsonSchema(anyOf[0] as TSchema), ...out }
  }
  switch (s.type) {
    case 'string':
      if (typeof s.format === 'string') out.format = s.format
      return { type: 'string', ...out }
    case 'number':
    case 'integer':
    case 'boolean':
      if (typeof s.minimum === 'number') out.minimum = s.minimum
      if (typeof s.maximum === 'number') out.maximum = s.maximum
      return { type: s.type, ...out }
    case 'array':
      return { type: 'array', ...out, items: s.items ? toJsonSchema(s.items as TSchema) : {} }
    case 'object': {
      const pattern = s.patternProperties as Record<string, TSchema> | undefined
      if (pattern) {
        const value = Object.values(pattern)[0]
        const inner = value ? toJsonSchema(value) : {}
        return { type: 'object', ...out, additionalProperties: Object.keys(inner).length > 0 ? inner : true }
      }
      const props = (s.properties ?? {}) as Record<string, TSchema>
      const properties: Record<string, JsonSchema> = {}
      for (const [k, v] of Object.entries(props)) properties[k] = toJsonSchema(v)
      const obj: JsonSchema = { type: 'object', ...out }
      if (Object.keys(properties).length > 0) obj.properties = properties
      const required = s.required as string[] | undefined
      if (required?.length) obj.required = [...required]
      if (s.additionalProperties === false) obj.additionalProperties = false
      else if (Object.keys(properties).length === 0) obj.additionalProperties = true
      return obj
    }
    default:
      // Type.Unknown: any JSON value.
      return out
  }
}

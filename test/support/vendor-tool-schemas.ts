import { type TSchema, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/*
 * Each vendor's documented tool definition, written as a schema the output must satisfy exactly
 * (no extra keys where the vendor documents a closed object):
 * - OpenAI Chat Completions: {type:'function', function:{name ^[a-zA-Z0-9_-]{1,64}$, description, parameters (JSON Schema)}}
 * - Anthropic Messages: {name ^[a-zA-Z0-9_-]{1,64}$, description, input_schema (JSON Schema object), defer_loading?}
 * - Gemini: tools: [{functionDeclarations:[{name, description, parameters? (OpenAPI 3.0 subset Schema)}]}]
 * - Cohere v2: {type:'function', function:{name (a-z, A-Z, 0-9, _; not starting with a digit), description, parameters}}
 */
export const JsonSchemaObject = Type.Object(
  { type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Any()) },
  { additionalProperties: true },
)
export const OpenAiTool = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
        description: Type.String(),
        parameters: JsonSchemaObject,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export const AnthropicTool = Type.Object(
  {
    name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
    description: Type.String(),
    input_schema: JsonSchemaObject,
    defer_loading: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export const CohereTool = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$' }),
        description: Type.String(),
        parameters: JsonSchemaObject,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export const GeminiSchema = Type.Recursive((Self) =>
  Type.Object(
    {
      type: Type.Union(
        ['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT'].map((t) => Type.Literal(t)),
      ),
      format: Type.Optional(Type.Union([Type.Literal('enum'), Type.Literal('date-time')])),
      description: Type.Optional(Type.String()),
      nullable: Type.Optional(Type.Boolean()),
      enum: Type.Optional(Type.Array(Type.String())),
      items: Type.Optional(Self),
      properties: Type.Optional(Type.Record(Type.String(), Self, { minProperties: 1 })),
      required: Type.Optional(Type.Array(Type.String())),
      minimum: Type.Optional(Type.Number()),
      maximum: Type.Optional(Type.Number()),
    },
    { additionalProperties: false },
  ),
)
export const GeminiTools = Type.Array(
  Type.Object(
    {
      functionDeclarations: Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: '^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$' }),
            description: Type.String(),
            parameters: Type.Optional(GeminiSchema),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: 1 },
)
export const DefaultTool = Type.Object(
  {
    id: Type.String(),
    description: Type.String(),
    parameters: Type.Array(
      Type.Object(
        { name: Type.String(), description: Type.String(), required: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    defer_loading: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/** The first few places where `value` does not satisfy `schema` (empty when it does). */
export function schemaErrors(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].slice(0, 3).map((e) => `${e.path}: ${e.message}`)
}

export const VENDOR_SCHEMAS = {
  openai: Type.Array(OpenAiTool),
  grok: Type.Array(OpenAiTool),
  groq: Type.Array(OpenAiTool),
  anthropic: Type.Array(AnthropicTool),
  gemini: GeminiTools,
  cohere: Type.Array(CohereTool),
  default: Type.Array(DefaultTool),
} as const

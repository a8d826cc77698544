import type { JsonSchema, ObjectSchema } from './json-schema.js'

export type ToolArguments = Readonly<Record<string, unknown>>

/** MCP tool annotations (hints for clients deciding whether to ask the user first). */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/**
 * What `hide_sensitive` removes from a tool's result: named top-level fields (the unified model's
 * personal fields), and everywhere below the top level (raw provider data, metadata) any key that
 * names personal data. `byKeyEverywhere` applies the key rule at the top level too (provider data).
 */
export interface Sensitivity {
  readonly fields: readonly string[]
  readonly byKeyEverywhere: boolean
}

/** One tool, bound to the request that listed it (its workspace, its connection). */
export interface Tool {
  /** snake_case, following the operation: `list_analytics_events`, `list_unified_connections`. */
  readonly name: string
  readonly title: string
  /** What it returns and when to use it; aliases extend it. */
  readonly description: string
  readonly inputSchema: ObjectSchema
  /**
   * The permission name the tool needs, for the `permissions` URL parameter: `<object>_read`,
   * `<object>_write` (create, update, patch) or `<object>_remove`.
   */
  readonly permission: string
  readonly annotations: ToolAnnotations
  /** Recorded in the API-call log: the HTTP method and route of the API operation it performs. */
  readonly method: string
  readonly route: string
  /** Calls that reach a provider are billable; workspace housekeeping is not. */
  readonly billable: boolean
  readonly sensitivity: Sensitivity
  run(args: ToolArguments): Promise<unknown>
}

/** A tool of the connection's integration that its grant does not cover: neither listed nor callable. */
export interface WithheldTool {
  readonly name: string
  /** The permissions the connection lacks for it. */
  readonly missing: readonly string[]
}

/** The 403 answered when a withheld tool is called. */
export function withheldMessage(tool: WithheldTool): string {
  return (
    `tool ${tool.name} needs ${tool.missing.join(' and ')}, which this connection was not granted; ` +
    "update the connection's permissions or re-authorize it"
  )
}

export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): ObjectSchema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  }
}

import type { FastifyInstance } from 'fastify'
import { ApiError, notFound } from '../errors.js'
import type { Services } from '../services.js'
import { checkArguments, objectArgument, ToolUrl } from './arguments.js'
import { type JsonSchema, type ObjectSchema, toJsonSchema } from './json-schema.js'
import { snakeCase } from './names.js'
import { regionAddress } from './regions.js'
import { objectSchema, type Sensitivity, type Tool, type ToolArguments } from './tool.js'

/** What a workspace tool needs at call time: the API it calls, as the caller (same key, same workspace). */
export interface WorkspaceToolContext {
  readonly app: FastifyInstance
  readonly services: Services
  readonly apiKey: string
  readonly workspaceId: string
}

/**
 * A workspace-mode tool that performs one API operation, found by its OpenAPI operationId: its input
 * schema comes from the route's own schemas, and the call goes through the route (auth, validation and
 * error messages included), so the tool cannot drift from the API.
 */
export interface ApiOperationTool {
  readonly operationId: string
  readonly permission: string
  readonly description: string
  readonly sensitivity?: Sensitivity
  /** Body fields the caller must not set (read-only fields the route ignores). */
  readonly omitBody?: readonly string[]
}

/** A workspace-mode tool with its own implementation (no single API operation behind it). */
export interface CustomWorkspaceTool {
  build(ctx: WorkspaceToolContext): Tool
}

export type WorkspaceToolEntry = ApiOperationTool | CustomWorkspaceTool

const NOTHING: Sensitivity = { fields: [], byKeyEverywhere: false }
const CONNECTION_SENSITIVITY: Sensitivity = { fields: ['external_xref'], byKeyEverywhere: false }
const CONNECTION_READ_ONLY = [
  'id',
  'workspace_id',
  'integration_name',
  'created_at',
  'updated_at',
  'is_paused',
  'last_healthy_at',
  'last_unhealthy_at',
  'last_unhealthy_code',
]

const WEBHOOK_READ_ONLY = [
  'id',
  'workspace_id',
  'integration_type',
  'is_healthy',
  'is_beta',
  'runs',
  'checked_at',
  'created_at',
  'updated_at',
  'meta',
]

const connectionMcpUrl: CustomWorkspaceTool = {
  build(ctx) {
    const schema = objectSchema(
      {
        connection_id: { type: 'string', description: 'The connection id (from list_unified_connections).' },
      },
      ['connection_id'],
    )
    return {
      name: 'get_unified_connection_mcp_url',
      title: 'get connection MCP URL',
      description:
        'Get the MCP server URL that serves one connection’s tools (its data: list, get, create… on the ' +
        'provider). Returns { url, region }. Use it to hand an agent access to a single connection.',
      inputSchema: schema,
      permission: 'unified_connection_read',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      method: 'GET',
      route: '/unified/connection/{id}',
      billable: false,
      sensitivity: NOTHING,
      async run(args: ToolArguments) {
        checkArguments('get_unified_connection_mcp_url', schema, args)
        const id = String(args.connection_id)
        const connection = await ctx.services.connectionStore.get(ctx.workspaceId, id)
        if (!connection) throw notFound(`connection ${id} not found`)
        const { region, baseUrl } = regionAddress(ctx.services.config, id)
        return {
          url: `${baseUrl}/mcp?connection=${encodeURIComponent(id)}`,
          region,
          authorization:
            'Send the workspace API key as `authorization: Bearer <key>`, or add `&token=<key>` for clients that cannot set headers.',
        }
      },
    }
  },
}

/**
 * The workspace-mode tool list. More tools are added by adding entries here: an API route with an
 * operationId becomes a tool as soon as the route exists (entries whose route is absent are skipped).
 */
export const WORKSPACE_TOOLS: WorkspaceToolEntry[] = [
  {
    operationId: 'listUnifiedConnections',
    permission: 'unified_connection_read',
    description:
      'List the workspace’s connections (one per end-user account at a provider). Returns a JSON array of ' +
      'Connection objects (id, integration_type, categories, permissions, external_xref, health dates). ' +
      'Use it to find a connection id, for example by external_xref (your customer’s id).',
    sensitivity: CONNECTION_SENSITIVITY,
  },
  {
    operationId: 'getUnifiedConnection',
    permission: 'unified_connection_read',
    description:
      'Get one connection by id. Returns the Connection (integration, granted permissions, health). ' +
      'Secret credentials are never returned.',
    sensitivity: CONNECTION_SENSITIVITY,
  },
  {
    operationId: 'createUnifiedConnection',
    permission: 'unified_connection_write',
    description:
      'Create a connection from credentials the workspace already holds (integration_type and auth, e.g. ' +
      'an API key); the provider verifies them first. Returns the new Connection with its id.',
    sensitivity: CONNECTION_SENSITIVITY,
    omitBody: CONNECTION_READ_ONLY,
  },
  {
    operationId: 'updateUnifiedConnection',
    permission: 'unified_connection_write',
    description:
      'Update a connection: its permissions, categories, external_xref, environment or credentials. ' +
      'Fields not given keep their values. Returns the updated Connection.',
    sensitivity: CONNECTION_SENSITIVITY,
    omitBody: CONNECTION_READ_ONLY,
  },
  {
    operationId: 'removeUnifiedConnection',
    permission: 'unified_connection_remove',
    description:
      'Delete a connection permanently; its provider data is no longer reachable. Returns nothing on ' +
      'success. Confirm with the user first.',
  },
  connectionMcpUrl,
  {
    operationId: 'listUnifiedIntegrations',
    permission: 'unified_integration_read',
    description:
      'List the integrations (providers) this server supports, with their support matrix: which objects ' +
      'and operations each can do and which list filters work. Use it before creating a connection or to ' +
      'explain what a provider supports.',
  },
  {
    operationId: 'listUnifiedWebhooks',
    permission: 'unified_webhook_read',
    description:
      'List the workspace’s webhook subscriptions. Returns a JSON array of Webhook objects (connection_id, ' +
      'object_type, event, hook_url, interval, health).',
  },
  {
    operationId: 'getUnifiedWebhook',
    permission: 'unified_webhook_read',
    description: 'Get one webhook subscription by id. Returns the Webhook.',
  },
  {
    operationId: 'createUnifiedWebhook',
    permission: 'unified_webhook_write',
    description:
      'Subscribe a URL to changes of one object type of a connection (event created, updated or deleted). ' +
      'Returns the new Webhook with its id.',
    omitBody: WEBHOOK_READ_ONLY,
  },
  {
    operationId: 'removeUnifiedWebhook',
    permission: 'unified_webhook_remove',
    description: 'Delete a webhook subscription. Returns nothing on success.',
  },
  {
    operationId: 'listUnifiedApicalls',
    permission: 'unified_apicall_read',
    description:
      'List recorded API calls, newest first: what the workspace’s agents (type mcp) and API clients ' +
      '(type inbound) did, with status, error and timing. Filter by connection_id, type, error=true for failures.',
    sensitivity: { fields: ['ip_address', 'user_agent', 'external_xref'], byKeyEverywhere: false },
  },
  {
    operationId: 'getUnifiedApicall',
    permission: 'unified_apicall_read',
    description: 'Get one recorded API call by id. Returns the ApiCall (name, path, status, error, timing).',
    sensitivity: { fields: ['ip_address', 'user_agent', 'external_xref'], byKeyEverywhere: false },
  },
  {
    operationId: 'listUnifiedNotifications',
    permission: 'unified_notification_read',
    description:
      'List workspace notifications, such as a webhook created, deleted or turned unhealthy (event ' +
      'WEBHOOK_CREATED, WEBHOOK_DELETED, WEBHOOK_UNHEALTHY). Returns a JSON array of Notification objects ' +
      '(event, description, webhook_id, connection_id, created_at). Use it to explain why a webhook stopped.',
  },
]

interface OpenApiParameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: Record<string, unknown>
}

interface OpenApiOperation {
  operationId?: string
  parameters?: OpenApiParameter[]
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> }
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>
  components?: { schemas?: Record<string, Record<string, unknown>> }
}

const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  id: 'The id of the record.',
  limit: 'How many records to return (default 100).',
  offset: 'How many records to skip, for the next page.',
  order: 'Sort direction.',
  sort: 'Field to sort by.',
  updated_gte: 'Only records updated at or after this ISO-8601 date.',
  categories: 'Only these categories, e.g. analytics.',
  env: 'Environment, default Production.',
  external_xref: 'Your own reference for the end user (customer id).',
  connection_id: 'A connection id.',
  integration_type: 'An integration type, e.g. posthog.',
}

interface FoundOperation {
  readonly method: string
  readonly path: string
  readonly operation: OpenApiOperation
}

function findOperation(doc: OpenApiDocument, operationId: string): FoundOperation | undefined {
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation.operationId === operationId) return { method: method.toUpperCase(), path, operation }
    }
  }
  return undefined
}

function bodySchema(doc: OpenApiDocument, operation: OpenApiOperation): JsonSchema | undefined {
  let schema = operation.requestBody?.content?.['application/json']?.schema
  const ref = schema?.$ref
  if (typeof ref === 'string') schema = doc.components?.schemas?.[ref.split('/').pop() ?? '']
  return schema ? toJsonSchema(schema) : undefined
}

function apiTool(
  entry: ApiOperationTool,
  found: FoundOperation,
  doc: OpenApiDocument,
  ctx: WorkspaceToolContext,
) {
  const { method, path, operation } = found
  const params = operation.parameters ?? []
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const body = bodySchema(doc, operation)
  for (const [name, schema] of Object.entries(body?.properties ?? {})) {
    if (entry.omitBody?.includes(name)) continue
    properties[name] = schema
    if (body?.required?.includes(name)) required.push(name)
  }
  for (const p of params) {
    const schema = toJsonSchema(p.schema ?? { type: 'string' })
    const description = p.description ?? schema.description ?? PARAMETER_DESCRIPTIONS[p.name]
    properties[p.name] = { ...schema, ...(description ? { description } : {}) }
    if (p.in === 'path' || p.required) required.push(p.name)
  }
  const inputSchema: ObjectSchema = objectSchema(properties, required)
  const name = snakeCase(entry.operationId)
  const tool: Tool = {
    name,
    title: name.replaceAll('_', ' '),
    description: entry.description,
    inputSchema,
    permission: entry.permission,
    annotations: {
      readOnlyHint: method === 'GET',
      destructiveHint: method === 'DELETE' || method === 'PUT',
      idempotentHint: method !== 'POST',
      openWorldHint: false,
    },
    method,
    route: path,
    billable: false,
    sensitivity: entry.sensitivity ?? NOTHING,
    async run(args: ToolArguments) {
      checkArguments(name, inputSchema, args)
      // Bounded as the REST request it makes would be: app.inject has no request line to bound it.
      const url = new ToolUrl(name, path)
      const payload: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(args)) {
        const param = params.find((p) => p.name === key)
        if (param?.in === 'path') url.fill(key, String(value))
        else if (param?.in === 'query') url.add(key, value)
        else payload[key] = properties[key]?.type === 'object' ? objectArgument(key, value) : value
      }
      const res = await ctx.app.inject({
        method: method as 'GET',
        url: url.toString(),
        headers: { authorization: `Bearer ${ctx.apiKey}` },
        ...(body ? { payload } : {}),
      })
      const parsed: unknown = res.body === '' ? undefined : JSON.parse(res.body)
      if (res.statusCode >= 400) {
        const message = (parsed as { message?: unknown } | undefined)?.message
        throw new ApiError(res.statusCode, typeof message === 'string' ? message : `${name} failed`)
      }
      return parsed === undefined ? { success: true } : parsed
    },
  }
  return tool
}

/** The workspace-mode tools whose API routes exist on this server. */
export function workspaceTools(ctx: WorkspaceToolContext, doc: OpenApiDocument): Tool[] {
  const tools: Tool[] = []
  for (const entry of WORKSPACE_TOOLS) {
    if ('build' in entry) {
      tools.push(entry.build(ctx))
      continue
    }
    const found = findOperation(doc, entry.operationId)
    if (found) tools.push(apiTool(entry, found, doc, ctx))
  }
  return tools
}

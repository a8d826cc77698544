import type { ResolvedConnection } from '../connections/index.js'
import { apiErrorFromProvider } from '../engine/index.js'
import { badRequest } from '../errors.js'
import { authFieldsOf } from '../integrations/auth-methods.js'
import type { ExternalTool } from '../integrations/types.js'
import { checkArguments, objectArgument } from './arguments.js'
import type { JsonSchema } from './json-schema.js'
import { objectSchema, type Tool, type ToolArguments, type WithheldTool } from './tool.js'

function placeholderValue(name: string, args: ToolArguments, resolved: ResolvedConnection): string {
  const fromArgs = args[name]
  if (fromArgs !== undefined && fromArgs !== '') return String(fromArgs)
  const fromSettings = resolved.connection.settings[name]
  if (fromSettings) return fromSettings
  const field = authFieldsOf(resolved.integration).find((f) => f.name === name && !f.secret)
  const fromCredentials = field ? resolved.connection.credentials[name] : undefined
  if (fromCredentials) return fromCredentials
  throw badRequest(`${name} is required`)
}

const toolName = (def: ExternalTool, resolved: ResolvedConnection) =>
  `${resolved.integration.type}_${def.name}`

/**
 * What the connection lacks for an external tool: the read (or write) grant of every object it declares.
 * A tool declaring no object cannot be judged, so it is withheld from every connection.
 */
function missingGrants(def: ExternalTool, resolved: ResolvedConnection): string[] {
  if (def.objects.length === 0) return [`a declared unified object (${def.name} names none)`]
  const held = resolved.connection.permissions
  return def.objects.map((object) => `${object}_${def.access}`).filter((p) => !held.includes(p))
}

function externalTool(def: ExternalTool, resolved: ResolvedConnection): Tool {
  const { integration } = resolved
  const name = toolName(def, resolved)
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const p of def.parameters) {
    properties[p.name] = { type: p.type, description: p.description }
    if (p.type === 'array') properties[p.name] = { type: 'array', items: {}, description: p.description }
    if (p.required) required.push(p.name)
  }
  const schema = objectSchema(properties, required)
  return {
    name,
    title: `${integration.name}: ${def.name.replaceAll('_', ' ')}`,
    description: `${def.description} (${integration.name} API, ${def.method} ${def.path}, outside the unified model.)`,
    inputSchema: schema,
    permission: `${integration.type}_external_${def.access === 'read' ? 'read' : def.method === 'DELETE' ? 'remove' : 'write'}`,
    annotations: {
      readOnlyHint: def.access === 'read',
      destructiveHint: def.method === 'DELETE' || def.method === 'PUT',
      idempotentHint: def.method !== 'POST',
      openWorldHint: true,
    },
    method: def.method,
    route: `/passthrough/{connection_id}${def.path}`,
    billable: true,
    // Provider data has no unified model to say which fields are personal: the key rule applies everywhere.
    sensitivity: { fields: [], byKeyEverywhere: true },
    async run(args: ToolArguments) {
      checkArguments(name, schema, args)
      const path = def.path.replace(/\{(\w+)\}/g, (_m, key: string) =>
        encodeURIComponent(placeholderValue(key, args, resolved)),
      )
      const query: Record<string, string> = {}
      const body: Record<string, unknown> = {}
      for (const p of def.parameters) {
        const value = args[p.name]
        if (value === undefined) continue
        if (p.in === 'query') query[p.name] = String(value)
        if (p.in === 'body') body[p.name] = p.type === 'object' ? objectArgument(p.name, value) : value
      }
      try {
        const res = await resolved.client.send({
          method: def.method,
          path,
          query,
          ...(def.parameters.some((p) => p.in === 'body') ? { body } : {}),
        })
        return res.body ?? { success: true }
      } catch (err) {
        throw apiErrorFromProvider(err, integration, `${def.method} ${path}`) ?? err
      }
    },
  }
}

/**
 * `include_external_tools=true`: the provider endpoints the integration describes beyond the unified
 * model, each called through the connection's provider client (the passthrough's auth and base URL).
 * Only those the connection's grant covers are offered; the others are withheld, so a connection granted
 * only reads cannot write through this door either.
 */
export function externalTools(resolved: ResolvedConnection): { offered: Tool[]; withheld: WithheldTool[] } {
  const offered: Tool[] = []
  const withheld: WithheldTool[] = []
  for (const def of resolved.integration.externalTools ?? []) {
    const missing = missingGrants(def, resolved)
    if (missing.length === 0) offered.push(externalTool(def, resolved))
    else withheld.push({ name: toolName(def, resolved), missing })
  }
  return { offered, withheld }
}

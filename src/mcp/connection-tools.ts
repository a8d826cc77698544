import { FormatRegistry, type TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { ConnectionResolver, ResolvedConnection } from '../connections/index.js'
import { MAX_LIMIT, MAX_OFFSET, parseQueryDate, runOperation, SINGLE_SCOPE_PARAM } from '../engine/index.js'
import { badRequest } from '../errors.js'
import type { ObjectHandlers, WriteBody } from '../integrations/types.js'
import { MODELS, type ObjectModel, type Operation, permissionFor, READ_ONLY_FIELDS } from '../models/index.js'
import { checkArguments, objectArgument, queryValue, ToolUrl } from './arguments.js'
import { type JsonSchema, type ObjectSchema, toJsonSchema } from './json-schema.js'
import { snakeCase } from './names.js'
import { objectSchema, type Tool, type ToolArguments, type WithheldTool } from './tool.js'

// Write bodies are checked with TypeBox, which needs the models' date format registered.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => parseQueryDate(v) !== undefined)

const METHODS: Record<Operation, string> = {
  list: 'GET',
  get: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  remove: 'DELETE',
}

/** `list_analytics_events`, `get_analytics_property`: the API's operation ids in snake_case. */
export function connectionToolName(model: ObjectModel, op: Operation): string {
  return `${op}_${snakeCase(op === 'list' ? model.plural : model.singular)}`
}

/**
 * The tool server's permission for an operation. Removing is its own permission here
 * (`<object>_remove`) so an agent allowed to write is not thereby allowed to delete; the connection's
 * own grant still follows the API (remove needs `<object>_write`).
 */
export function toolPermission(model: ObjectModel, op: Operation): string {
  if (op === 'remove') return `${model.objectType}_remove`
  return permissionFor(model, op)
}

const LIST_PARAM_SCHEMAS: Record<string, JsonSchema> = {
  updated_gte: {
    type: 'string',
    description: 'Only records updated at or after this ISO-8601 date (for incremental reads).',
  },
  order: { type: 'string', enum: ['asc', 'desc'], description: 'Sort direction.' },
  query: { type: 'string', description: 'Free-text search, for example on a name.' },
}

function fieldsSchema(model: ObjectModel): JsonSchema {
  return {
    type: 'array',
    items: { type: 'string' },
    description:
      `Fields to return (default: all). Allowed: ${model.fieldNames.join(', ')}. ` +
      '`raw` adds the provider’s original record; `raw.<name>` one provider field.',
  }
}

const RAW_PARAMS: JsonSchema = {
  type: 'string',
  description:
    'Rarely needed: extra provider request parameters as one URL-encoded string of name=value pairs joined by &.',
}

function listInput(model: ObjectModel, handlers: ObjectHandlers): ObjectSchema {
  const props: Record<string, JsonSchema> = {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_LIMIT,
      description: 'How many records to return (default 100).',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_OFFSET,
      description: `How many records to skip, for the next page (at most ${MAX_OFFSET}).`,
    },
  }
  for (const param of handlers.listParams) {
    const schema = LIST_PARAM_SCHEMAS[param]
    if (schema) props[param] = schema
  }
  if (handlers.sortFields?.length && handlers.listParams.includes('sort')) {
    props.sort = { type: 'string', enum: [...handlers.sortFields], description: 'Field to sort by.' }
  }
  // Only the filters this integration can apply at the provider: the others would answer 501.
  for (const [name, kind] of Object.entries(model.filters)) {
    if (!handlers.filters.includes(name)) continue
    props[name] =
      kind === 'date'
        ? { type: 'string', format: 'date-time', description: `${name.replace('_', ' ')} (ISO-8601 date).` }
        : { type: 'string', description: `Only records whose ${name} is this value.` }
  }
  props.fields = fieldsSchema(model)
  props.raw = RAW_PARAMS
  // What the integration cannot list without (the matrix's `supported-required`), as REST asks for it.
  for (const name of (handlers.requiredParams ?? []).filter((p) => p in props)) {
    props[name] = { ...props[name], description: requiredNote(name, props[name]?.description) }
  }
  return objectSchema(
    props,
    mandatory(handlers.requiredParams ?? []).filter((p) => p in props),
  )
}

/**
 * The required parameters a call must always give: all but the scope the engine fills in when the
 * connection has only one (REST does the same, and answers 400 naming the ids when it has several).
 */
const mandatory = (required: readonly string[]) => required.filter((p) => p !== SINGLE_SCOPE_PARAM)

function requiredNote(name: string, description = ''): string {
  const note =
    name === SINGLE_SCOPE_PARAM
      ? 'Required when the connection has more than one property (the ids come from the property list); the only one is used otherwise.'
      : 'Required here.'
  return `${description} ${note}`.trim()
}

/** The create body's required members: declared fields, and `raw` when a `raw.<name>` is required. */
function createRequired(handlers: ObjectHandlers): string[] {
  const names = mandatory(handlers.requiredFields ?? []).map((f) => (f.startsWith('raw.') ? 'raw' : f))
  return [...new Set(names)]
}

function writeProperties(model: ObjectModel): Record<string, JsonSchema> {
  const body = toJsonSchema(model.writeSchema).properties ?? {}
  const props: Record<string, JsonSchema> = {}
  for (const [name, schema] of Object.entries(body)) {
    if ((READ_ONLY_FIELDS as readonly string[]).includes(name)) continue
    props[name] =
      name === 'raw'
        ? { ...schema, description: 'Provider-specific fields that the unified model does not have.' }
        : schema
  }
  return props
}

const ID = (model: ObjectModel): JsonSchema => ({ type: 'string', description: `The ${model.singular} id.` })

function inputSchema(model: ObjectModel, op: Operation, handlers: ObjectHandlers): ObjectSchema {
  switch (op) {
    case 'list':
      return listInput(model, handlers)
    case 'get':
      return objectSchema({ id: ID(model), fields: fieldsSchema(model), raw: RAW_PARAMS }, ['id'])
    case 'create': {
      const props = writeProperties(model)
      for (const name of (handlers.requiredFields ?? []).filter((f) => f in props)) {
        props[name] = { ...props[name], description: requiredNote(name, props[name]?.description) }
      }
      return objectSchema({ ...props, fields: fieldsSchema(model) }, createRequired(handlers))
    }
    case 'update':
    case 'patch':
      return objectSchema({ id: ID(model), ...writeProperties(model), fields: fieldsSchema(model) }, ['id'])
    case 'remove':
      return objectSchema({ id: ID(model) }, ['id'])
  }
}

function describe(model: ObjectModel, op: Operation, provider: string, handlers: ObjectHandlers): string {
  const thing = model.singular
  const fields = model.fieldNames.filter((f) => f !== 'raw').join(', ')
  const listName = connectionToolName(model, 'list')
  switch (op) {
    case 'list': {
      const filters = Object.keys(model.filters).filter((f) => handlers.filters.includes(f))
      return (
        `List ${thing} records (${model.objectType}) of this ${provider} connection, read live from ${provider}. ` +
        `Returns a JSON array of ${thing} objects (${fields}). ` +
        `Use it to find or browse records${filters.length ? `, filtered by ${filters.join(', ')}` : ''}; ` +
        'page with limit and offset, and ask only for the fields you need.'
      )
    }
    case 'get':
      return (
        `Get one ${thing} (${model.objectType}) by id from ${provider}. Returns the ${thing} object (${fields}). ` +
        `Use it when you know the id, for example from ${listName}.`
      )
    case 'create':
      return `Create a ${thing} (${model.objectType}) in ${provider}. Returns the created ${thing}, with its id.`
    case 'update':
      return (
        `Update a ${thing} (${model.objectType}) in ${provider}, sending the record as it should be. ` +
        `Returns the updated ${thing}. To change only some fields, prefer patch.`
      )
    case 'patch':
      return (
        `Change some fields of a ${thing} (${model.objectType}) in ${provider}; fields not given stay as they are. ` +
        `Returns the updated ${thing}.`
      )
    case 'remove':
      return `Delete a ${thing} (${model.objectType}) in ${provider} permanently. Returns nothing on success. Confirm with the user first.`
  }
}

function checkBody(toolName: string, model: ObjectModel, body: Record<string, unknown>): void {
  const error = Value.Errors(model.writeSchema as TObject, body).First()
  if (error) {
    const where = error.path.replace(/^\//, '').replaceAll('/', '.')
    throw badRequest(`${toolName}: ${where || 'arguments'} ${error.message.toLowerCase()}`)
  }
}

const QUERY_ARGS = new Set(['fields', 'raw', 'limit', 'offset', 'updated_gte', 'sort', 'order', 'query'])

export interface ConnectionToolDeps {
  readonly resolver: ConnectionResolver
  readonly slowFieldsOptIn: boolean
}

/** The operations the integration can do but the connection was not granted: tools it does not get. */
export function withheldConnectionTools(resolved: ResolvedConnection): WithheldTool[] {
  const { integration, connection } = resolved
  const withheld: WithheldTool[] = []
  for (const model of MODELS) {
    const handlers = integration.objects[model.objectType]
    if (!handlers) continue
    for (const op of model.operations) {
      const needed = permissionFor(model, op)
      if (typeof handlers[op] !== 'function' || connection.permissions.includes(needed)) continue
      withheld.push({ name: connectionToolName(model, op), missing: [needed] })
    }
  }
  return withheld
}

/**
 * The tools of one connection, generated from the models and the integration's definition (its support
 * matrix): an operation the integration cannot do, or the connection was not granted, has no tool.
 */
export function connectionTools(resolved: ResolvedConnection, deps: ConnectionToolDeps): Tool[] {
  const { integration, connection } = resolved
  const tools: Tool[] = []
  for (const model of MODELS) {
    const handlers = integration.objects[model.objectType]
    if (!handlers) continue
    for (const op of model.operations) {
      if (typeof handlers[op] !== 'function') continue
      if (!connection.permissions.includes(permissionFor(model, op))) continue
      const name = connectionToolName(model, op)
      const schema = inputSchema(model, op, handlers)
      const item = op !== 'list' && op !== 'create'
      const route = `/${model.category}/{connection_id}/${model.path}${item ? '/{id}' : ''}`
      tools.push({
        name,
        title: `${op} ${model.objectType.replace('_', ' ')}`,
        description: describe(model, op, integration.name, handlers),
        inputSchema: schema,
        permission: toolPermission(model, op),
        annotations: {
          readOnlyHint: op === 'list' || op === 'get',
          destructiveHint: op === 'remove' || op === 'update',
          idempotentHint: op !== 'create',
          openWorldHint: true,
        },
        method: METHODS[op],
        route,
        billable: true,
        sensitivity: { fields: model.personalFields, byKeyEverywhere: false },
        async run(args: ToolArguments) {
          checkArguments(name, schema, args)
          // The URL the REST call would be, counted (not sent) so that a tool call carries no more than it.
          const url = new ToolUrl(name, route)
          url.fill('connection_id', connection.id)
          if (item) url.fill('id', String(args.id))
          const query: Record<string, unknown> = {}
          const body: Record<string, unknown> = {}
          for (const [key, value] of Object.entries(args)) {
            if (key === 'id') continue
            const isQuery = op === 'list' || op === 'get' ? true : key === 'fields'
            if (isQuery && (QUERY_ARGS.has(key) || key in model.filters)) {
              if (value !== undefined && value !== null) url.add(key, value)
              query[key] = queryValue(name, key, value)
            } else if (!isQuery)
              body[key] = schema.properties[key]?.type === 'object' ? objectArgument(key, value) : value
          }
          if (op === 'create' || op === 'update' || op === 'patch') checkBody(name, model, body)
          const result = await runOperation(deps.resolver, {
            resolved,
            model,
            operation: op,
            ...(item ? { id: String(args.id) } : {}),
            query,
            ...(op === 'create' || op === 'update' || op === 'patch' ? { body: body as WriteBody } : {}),
            slowFieldsOptIn: deps.slowFieldsOptIn,
          })
          return op === 'remove' ? { success: true } : result
        },
      })
    }
  }
  return tools
}

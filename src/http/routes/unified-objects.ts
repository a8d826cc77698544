import { type TSchema, Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { noteConnection } from '../../apicalls/index.js'
import { runOperation } from '../../engine/index.js'
import { resultJson, withinNesting } from '../../engine/result-json.js'
import { notFound } from '../../errors.js'
import { INTEGRATIONS } from '../../integrations/registry.js'
import type { WriteBody } from '../../integrations/types.js'
import { LimitParam, MODELS, type ObjectModel, OffsetParam, type Operation } from '../../models/index.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'
import { validationMessage } from '../errors.js'

const Fields = Type.Array(Type.String(), {
  description:
    'Fields to return, repeated (fields=id&fields=name) or comma-joined (fields=id,name). `raw` adds the provider record; `raw.<name>` one provider field.',
})
const RawParam = Type.String({
  description:
    'Extra parameters for the provider request, URL-encoded as one string of name=value pairs joined by &.',
})

/**
 * The integrations that cannot list this object without `param` (their matrix says `supported-required`).
 * The document is shared by every integration, so it names them (`x-required-by`) instead of `required`.
 */
function requiredBy(model: ObjectModel, param: string): { 'x-required-by'?: string[]; suffix: string } {
  const types = INTEGRATIONS.filter((i) => i.objects[model.objectType]?.requiredParams?.includes(param)).map(
    (i) => i.type,
  )
  if (types.length === 0) return { suffix: '' }
  const scope = param === 'property_id' ? ' (filled in when the connection has exactly one property)' : ''
  return { 'x-required-by': types, suffix: ` Required by ${types.join(', ')}${scope}.` }
}

function described(model: ObjectModel, param: string, description: string) {
  const { suffix, ...extension } = requiredBy(model, param)
  return { description: `${description}${suffix}`, ...extension }
}

function listQuerySchema(model: ObjectModel) {
  const props: Record<string, TSchema> = {
    fields: Type.Optional(Fields),
    raw: Type.Optional(RawParam),
    limit: Type.Optional(LimitParam()),
    offset: Type.Optional(OffsetParam()),
    updated_gte: Type.Optional(
      Type.String({ description: 'Only records updated at or after this ISO-8601 date.' }),
    ),
    sort: Type.Optional(
      Type.String({ description: 'Field to sort by (see the integration support matrix).' }),
    ),
    order: Type.Optional(Type.String({ description: 'asc or desc.' })),
    query: Type.Optional(Type.String(described(model, 'query', 'Free-text search.'))),
  }
  for (const [name, kind] of Object.entries(model.filters)) {
    props[name] = Type.Optional(
      Type.String(
        described(model, name, kind === 'date' ? `${name} (ISO-8601 date).` : `Filter by ${name}.`),
      ),
    )
  }
  return Type.Object(props, { additionalProperties: false })
}

const itemQuerySchema = Type.Object(
  { fields: Type.Optional(Fields), raw: Type.Optional(RawParam) },
  { additionalProperties: false },
)
const removeQuerySchema = Type.Object({}, { additionalProperties: false })

const JSON_TYPE = 'application/json; charset=utf-8'

const ConnectionParams = Type.Object({ connection_id: Type.String() })
// An empty id (`…/contact/`, a trailing slash) named no record: sent on, it reached the provider's list or
// collection address, and a DELETE removed whatever record that answered first.
const ItemParams = Type.Object({ connection_id: Type.String(), id: Type.String({ minLength: 1 }) })

const VERBS: Record<
  Operation,
  { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; item: boolean; verb: string }
> = {
  list: { method: 'GET', item: false, verb: 'list' },
  create: { method: 'POST', item: false, verb: 'create' },
  get: { method: 'GET', item: true, verb: 'get' },
  update: { method: 'PUT', item: true, verb: 'update' },
  patch: { method: 'PATCH', item: true, verb: 'patch' },
  remove: { method: 'DELETE', item: true, verb: 'remove' },
}

export function operationId(model: ObjectModel, op: Operation): string {
  return `${VERBS[op].verb}${op === 'list' ? model.plural : model.singular}`
}

/** Routes for every object and operation of the model registry: `/{category}/{connection_id}/{object}[/{id}]`. */
export async function unifiedObjectRoutes(app: FastifyInstance, services: Services): Promise<void> {
  for (const model of MODELS) {
    app.addSchema(model.schema)
    app.addSchema(model.writeSchema)
  }
  const auth = requireWorkspaceKey(services.apiKeys)
  for (const model of MODELS) {
    for (const op of model.operations) {
      const { method, item } = VERBS[op]
      const querystring =
        op === 'list' ? listQuerySchema(model) : op === 'remove' ? removeQuerySchema : itemQuerySchema
      const allowed = Object.keys(querystring.properties)
      const ref = Type.Ref(model.schema.$id!)
      const response = op === 'remove' ? undefined : op === 'list' ? Type.Array(ref) : ref
      app.route({
        method,
        url: `/${model.category}/:connection_id/${model.path}${item ? '/:id' : ''}`,
        onRequest: auth,
        schema: {
          operationId: operationId(model, op),
          tags: [model.category, model.path],
          summary: `${op} ${model.objectType}`,
          security: [{ jwt: [] }],
          params: item ? ItemParams : ConnectionParams,
          querystring,
          ...(op === 'create' || op === 'update' || op === 'patch'
            ? { body: Type.Ref(model.writeSchema.$id!) }
            : {}),
          ...(response ? { response: { 200: response } } : {}),
        },
        schemaErrorFormatter: (errors, context) =>
          new Error(validationMessage(errors, context, context === 'querystring' ? allowed : undefined)),
        handler: async (request: FastifyRequest, reply) => {
          const params = request.params as { connection_id: string; id?: string }
          const resolved = await services.resolver.resolve(request.workspaceId, params.connection_id)
          if (!resolved) throw notFound(`connection ${params.connection_id} not found`)
          noteConnection(request, resolved)
          const workspace = await services.workspaceSettings.get(request.workspaceId)
          const result = await withinNesting(() =>
            runOperation(services.resolver, {
              resolved,
              model,
              operation: op,
              ...(params.id !== undefined ? { id: params.id } : {}),
              query: request.query as Record<string, unknown>,
              ...(request.body !== undefined ? { body: request.body as WriteBody } : {}),
              slowFieldsOptIn: workspace?.slow_fields_opt_in ?? false,
            }),
          )
          if (op === 'remove') return reply.code(200).send()
          // The records are already shaped (only model fields, no null, dates as strings), so one native
          // JSON.stringify writes what the schema describes; the schema serializer, which checks each enum
          // value against its union at run time, cost more than mapping the page. The schema stays: it is
          // the documented contract (openapi.json) and the tests hold the records to it.
          return reply.code(200).type(JSON_TYPE).send(resultJson(result))
        },
      })
    }
  }
}

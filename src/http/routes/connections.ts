import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { AUTH_QUERY_LIMITS } from '../../authorization/routes.js'
import { type ConnectionInput, connectionView, type StoredConnection } from '../../connections/index.js'
import { parseQueryDate } from '../../engine/index.js'
import { badRequest, notFound } from '../../errors.js'
import { authFieldsOf } from '../../integrations/auth-methods.js'
import { integrationOf } from '../../integrations/registry.js'
import { LimitParam, OffsetParam } from '../../models/index.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'
import { parseCategories } from '../categories.js'
import { validationMessage } from '../errors.js'

const S = () => Type.Optional(Type.String())

/** The SDK's `Connection`; read-only fields it may echo back are accepted and ignored. */
export const ConnectionBody = Type.Object(
  {
    integration_type: S(),
    categories: Type.Optional(Type.Array(Type.String())),
    permissions: Type.Optional(Type.Array(Type.String())),
    auth: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Credentials; secret ones are never returned.',
      }),
    ),
    // Copied into every API-call record of the connection and kept in every process's connection cache: the
    // caps the authorization flow applies to the same values (its `external_xref` and `env`).
    external_xref: Type.Optional(Type.String({ maxLength: AUTH_QUERY_LIMITS.external_xref })),
    environment: Type.Optional(Type.String({ maxLength: AUTH_QUERY_LIMITS.short })),
    id: S(),
    workspace_id: S(),
    integration_name: S(),
    created_at: S(),
    updated_at: S(),
    is_paused: Type.Optional(Type.Boolean()),
    last_healthy_at: S(),
    last_unhealthy_at: S(),
    last_unhealthy_code: S(),
    secretsmanager_id: S(),
    secretsmanager_key: S(),
  },
  { $id: 'Connection', additionalProperties: false },
)

const ListQuery = Type.Object(
  {
    categories: Type.Optional(Type.Array(Type.String())),
    env: S(),
    external_xref: S(),
    limit: Type.Optional(LimitParam()),
    offset: Type.Optional(OffsetParam()),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    sort: Type.Optional(
      Type.Union([Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('integration_type')]),
    ),
    updated_gte: S(),
  },
  { additionalProperties: false },
)

const IdParams = Type.Object({ id: Type.String() })

function view(c: StoredConnection) {
  const integration = integrationOf(c.integration_type)
  const secret = new Set(
    (integration ? authFieldsOf(integration) : []).filter((f) => f.secret).map((f) => f.name),
  )
  return connectionView(c, secret, integration?.name)
}

export async function connectionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.addSchema(ConnectionBody)
  app.addHook('onRequest', requireWorkspaceKey(services.apiKeys))
  const formatter =
    (allowed?: string[]) => (errors: Parameters<typeof validationMessage>[0], context: string) =>
      new Error(validationMessage(errors, context, allowed))
  const tags = ['connection']
  const security = [{ jwt: [] }]

  app.get(
    '/unified/connection',
    {
      schema: { operationId: 'listUnifiedConnections', tags, security, querystring: ListQuery },
      schemaErrorFormatter: formatter(Object.keys(ListQuery.properties)),
    },
    async (request) => {
      const q = request.query as {
        categories?: string[]
        env?: string
        external_xref?: string
        limit?: number
        offset?: number
        order?: 'asc' | 'desc'
        sort?: 'created_at' | 'updated_at' | 'integration_type'
        updated_gte?: string
      }
      const categories = parseCategories('categories', q.categories)
      let updatedGte: string | undefined
      if (q.updated_gte) {
        const d = parseQueryDate(q.updated_gte)
        if (!d) throw badRequest(`updated_gte: '${q.updated_gte}' is not an ISO-8601 date`)
        updatedGte = d.toISOString()
      }
      const rows = await services.connectionStore.list({
        workspaceId: request.workspaceId,
        ...(categories ? { categories } : {}),
        ...(q.env ? { environment: q.env } : {}),
        ...(q.external_xref ? { externalXref: q.external_xref } : {}),
        ...(updatedGte ? { updatedGte } : {}),
        sort: q.sort ?? 'created_at',
        order: q.order ?? 'asc',
        limit: q.limit ?? 100,
        offset: q.offset ?? 0,
      })
      return rows.map(view)
    },
  )

  app.post(
    '/unified/connection',
    {
      schema: { operationId: 'createUnifiedConnection', tags, security, body: Type.Ref('Connection') },
      schemaErrorFormatter: formatter(Object.keys(ConnectionBody.properties)),
    },
    async (request) =>
      view(await services.connections.create(request.workspaceId, request.body as ConnectionInput)),
  )

  app.get(
    '/unified/connection/:id',
    {
      schema: { operationId: 'getUnifiedConnection', tags, security, params: IdParams },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const c = await services.connectionStore.get(request.workspaceId, id)
      if (!c) throw notFound(`connection ${id} not found`)
      return view(c)
    },
  )

  for (const [method, operationId] of [
    ['PUT', 'updateUnifiedConnection'],
    ['PATCH', 'patchUnifiedConnection'],
  ] as const) {
    app.route({
      method,
      url: '/unified/connection/:id',
      schema: { operationId, tags, security, params: IdParams, body: Type.Ref('Connection') },
      schemaErrorFormatter: formatter(Object.keys(ConnectionBody.properties)),
      handler: async (request) => {
        const { id } = request.params as { id: string }
        return view(
          await services.connections.update(request.workspaceId, id, request.body as ConnectionInput),
        )
      },
    })
  }

  app.delete(
    '/unified/connection/:id',
    {
      schema: { operationId: 'removeUnifiedConnection', tags, security, params: IdParams },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string }
      await services.connections.remove(request.workspaceId, id)
      return reply.code(200).send()
    },
  )
}

import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { parseQueryDate } from '../engine/index.js'
import { badRequest, notFound } from '../errors.js'
import { requireWorkspaceKey } from '../http/auth.js'
import { validationMessage } from '../http/errors.js'
import { LimitParam, OffsetParam } from '../models/index.js'
import type { ApiCallLog } from './api-call-log.js'

const ListQuery = Type.Object(
  {
    connection_id: Type.Optional(Type.String()),
    env: Type.Optional(Type.String()),
    error: Type.Optional(
      Type.Boolean({ description: 'true: only failed calls; false: only successful ones.' }),
    ),
    external_xref: Type.Optional(Type.String()),
    integration_type: Type.Optional(Type.String()),
    is_billable: Type.Optional(Type.Boolean()),
    limit: Type.Optional(LimitParam()),
    offset: Type.Optional(OffsetParam()),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    sort: Type.Optional(
      Type.Union([Type.Literal('created_at'), Type.Literal('name'), Type.Literal('status')]),
    ),
    type: Type.Optional(Type.String({ description: 'mcp (tool calls), inbound, webhook or login.' })),
    updated_gte: Type.Optional(
      Type.String({ description: 'Only calls made at or after this ISO-8601 date.' }),
    ),
    webhook_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

type Query = {
  connection_id?: string
  env?: string
  error?: boolean
  external_xref?: string
  integration_type?: string
  is_billable?: boolean
  limit?: number
  offset?: number
  order?: 'asc' | 'desc'
  sort?: 'created_at' | 'name' | 'status'
  type?: string
  updated_gte?: string
  webhook_id?: string
}

/** `GET /unified/apicall[/{id}]`: what the workspace's agents and API clients did, newest first. */
export async function apiCallRoutes(
  app: FastifyInstance,
  deps: { apiKeys: Parameters<typeof requireWorkspaceKey>[0]; apiCalls: ApiCallLog },
): Promise<void> {
  app.addHook('onRequest', requireWorkspaceKey(deps.apiKeys))
  const tags = ['apicall']
  const security = [{ jwt: [] }]
  app.get(
    '/unified/apicall',
    {
      schema: { operationId: 'listUnifiedApicalls', tags, security, querystring: ListQuery },
      schemaErrorFormatter: (errors, context) =>
        new Error(validationMessage(errors, context, Object.keys(ListQuery.properties))),
    },
    async (request) => {
      const q = request.query as Query
      let updatedGte: string | undefined
      if (q.updated_gte) {
        const d = parseQueryDate(q.updated_gte)
        if (!d) throw badRequest(`updated_gte: '${q.updated_gte}' is not an ISO-8601 date`)
        updatedGte = d.toISOString()
      }
      return deps.apiCalls.list({
        workspaceId: request.workspaceId,
        ...(q.connection_id ? { connectionId: q.connection_id } : {}),
        ...(q.env ? { environment: q.env } : {}),
        ...(q.error !== undefined ? { error: q.error } : {}),
        ...(q.external_xref ? { externalXref: q.external_xref } : {}),
        ...(q.integration_type ? { integrationType: q.integration_type } : {}),
        ...(q.is_billable !== undefined ? { isBillable: q.is_billable } : {}),
        ...(q.type ? { type: q.type } : {}),
        ...(q.webhook_id ? { webhookId: q.webhook_id } : {}),
        ...(updatedGte ? { updatedGte } : {}),
        sort: q.sort ?? 'created_at',
        // A log is read newest first.
        order: q.order ?? 'desc',
        limit: q.limit ?? 100,
        offset: q.offset ?? 0,
      })
    },
  )
  app.get(
    '/unified/apicall/:id',
    {
      schema: {
        operationId: 'getUnifiedApicall',
        tags,
        security,
        params: Type.Object({ id: Type.String() }),
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const call = await deps.apiCalls.get(request.workspaceId, id)
      if (!call) throw notFound(`API call ${id} not found`)
      return call
    },
  )
}

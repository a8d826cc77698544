import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { badRequest, notFound } from '../../errors.js'
import { INTEGRATIONS } from '../../integrations/registry.js'
import { integrationView } from '../../integrations/support.js'
import { LimitParam, OffsetParam } from '../../models/index.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'
import { parseCategories } from '../categories.js'
import { validationMessage } from '../errors.js'

const ListQuery = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    categories: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.String()),
    limit: Type.Optional(LimitParam()),
    offset: Type.Optional(OffsetParam()),
    summary: Type.Optional(Type.Boolean()),
    type: Type.Optional(Type.String()),
    updated_gte: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

type Query = {
  active?: boolean
  categories?: string[]
  limit?: number
  offset?: number
  summary?: boolean
  type?: string
}

function listIntegrations(q: Query) {
  const categories = parseCategories('categories', q.categories)
  return INTEGRATIONS.filter((i) => !q.type || i.type === q.type)
    .filter((i) => !categories || i.categories.some((c) => categories.includes(c)))
    .slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 100))
    .map((i) => integrationView(i, q.summary === true))
}

/** The support matrix is generated from the integration definitions, so it says what really works. */
export async function integrationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const formatter = (errors: Parameters<typeof validationMessage>[0], context: string) =>
    new Error(validationMessage(errors, context, Object.keys(ListQuery.properties)))

  app.get(
    '/unified/integration',
    {
      onRequest: requireWorkspaceKey(services.apiKeys),
      schema: {
        operationId: 'listUnifiedIntegrations',
        tags: ['integration'],
        security: [{ jwt: [] }],
        querystring: ListQuery,
      },
      schemaErrorFormatter: formatter,
    },
    async (request) => listIntegrations(request.query as Query),
  )

  // Public on purpose: the embeddable component lists a workspace's integrations before any key exists.
  app.get(
    '/unified/integration/workspace/:workspace_id',
    {
      schema: {
        operationId: 'listUnifiedIntegrationWorkspaces',
        tags: ['integration'],
        params: Type.Object({ workspace_id: Type.String() }),
        querystring: Type.Omit(ListQuery, ['type']),
      },
      schemaErrorFormatter: formatter,
    },
    async (request) => {
      const { workspace_id } = request.params as { workspace_id: string }
      if (!(await services.workspaceSettings.get(workspace_id)))
        throw notFound(`workspace ${workspace_id} not found`)
      const q = request.query as Query
      if (q.active === false) return []
      if (q.type) throw badRequest('type is not a parameter of this endpoint')
      return listIntegrations(q)
    },
  )
}

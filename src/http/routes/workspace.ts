import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { notFound } from '../../errors.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'
import { validationMessage } from '../errors.js'

const WorkspacePatch = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1 })), slow_fields_opt_in: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)

/** Unigate's own workspace settings (not part of the Unified.to SDK): the key's workspace only. */
export async function workspaceRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.addHook('onRequest', requireWorkspaceKey(services.apiKeys))
  const schema = { tags: ['workspace'], security: [{ jwt: [] }] }
  app.get(
    '/unified/workspace',
    { schema: { ...schema, operationId: 'getUnigateWorkspace' } },
    async (request) => {
      const ws = await services.workspaces.get(request.workspaceId)
      if (!ws) throw notFound('workspace not found')
      return ws
    },
  )
  app.patch(
    '/unified/workspace',
    {
      schema: { ...schema, operationId: 'patchUnigateWorkspace', body: WorkspacePatch },
      schemaErrorFormatter: (errors, context) =>
        new Error(validationMessage(errors, context, Object.keys(WorkspacePatch.properties))),
    },
    async (request) => {
      const ws = await services.workspaces.update(
        request.workspaceId,
        request.body as { slow_fields_opt_in?: boolean },
      )
      services.workspaceSettings.invalidate(request.workspaceId)
      if (!ws) throw notFound('workspace not found')
      return ws
    },
  )
}

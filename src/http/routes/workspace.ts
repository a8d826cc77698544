import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { AUTH_QUERY_LIMITS } from '../../authorization/routes.js'
import { badRequest, notFound } from '../../errors.js'
import type { Services } from '../../services.js'
import { normalizeOrigin, type WorkspaceSettingsPatch } from '../../workspaces/index.js'
import { requireWorkspaceKey } from '../auth.js'
import { validationMessage } from '../errors.js'

/**
 * The most redirect origins a workspace keeps: each authorization start reads them all, and a list of ten
 * thousand was stored without a word.
 */
const MAX_REDIRECT_ORIGINS = 100

const WorkspacePatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    slow_fields_opt_in: Type.Optional(Type.Boolean()),
    allowed_redirect_origins: Type.Optional(
      Type.Array(Type.String({ maxLength: AUTH_QUERY_LIMITS.redirect }), {
        maxItems: MAX_REDIRECT_ORIGINS,
        description: `Origins (https://app.example.com) the authorization flow may redirect end users to; at most ${MAX_REDIRECT_ORIGINS}.`,
      }),
    ),
  },
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
      const patch = request.body as WorkspaceSettingsPatch
      for (const origin of patch.allowed_redirect_origins ?? []) {
        try {
          normalizeOrigin(origin)
        } catch (err) {
          throw badRequest(`allowed_redirect_origins: ${(err as Error).message}`)
        }
      }
      const ws = await services.workspaces.update(request.workspaceId, patch)
      await services.workspaceSettings.invalidate(request.workspaceId)
      if (!ws) throw notFound('workspace not found')
      return ws
    },
  )
}

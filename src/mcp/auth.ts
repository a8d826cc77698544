import type { FastifyRequest } from 'fastify'
import { unauthorized } from '../errors.js'
import { keyFromHeader } from '../http/auth.js'
import type { ApiKeys } from '../workspaces/index.js'

/**
 * The workspace API key from the `authorization` header or, for hosted LLM clients that cannot set
 * headers, from the `token` URL parameter. Request logs carry only the path, so the token is never logged.
 */
export async function authenticateToolCaller(request: FastifyRequest, apiKeys: ApiKeys): Promise<string> {
  const query = request.query as Record<string, unknown>
  const token = typeof query.token === 'string' ? query.token : undefined
  const key = keyFromHeader(request.headers.authorization) ?? (token || undefined)
  if (!key) {
    throw unauthorized(
      'missing API key: send the workspace API key in the authorization header, or as the token URL parameter',
    )
  }
  const claims = await apiKeys.verify(key)
  if (!claims) throw unauthorized('invalid or revoked API key')
  request.workspaceId = claims.workspaceId
  return key
}

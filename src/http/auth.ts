import type { FastifyReply, FastifyRequest } from 'fastify'
import { unauthorized } from '../errors.js'
import type { ApiKeys } from '../workspaces/index.js'

declare module 'fastify' {
  interface FastifyRequest {
    workspaceId: string
  }
}

/** `authorization: Bearer <key>`, `bearer <key>` and a bare `<key>` (the SDK sends it verbatim) all work. */
export function keyFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  const match = /^bearer\s+(.+)$/i.exec(trimmed)
  return (match ? match[1]! : trimmed) || undefined
}

export function requireWorkspaceKey(apiKeys: ApiKeys) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const key = keyFromHeader(request.headers.authorization)
    if (!key) throw unauthorized('missing API key: send the workspace API key in the authorization header')
    const claims = await apiKeys.verify(key)
    if (!claims) throw unauthorized('invalid or revoked API key')
    request.workspaceId = claims.workspaceId
  }
}

import type { FastifyReply, FastifyRequest } from 'fastify'
import { unauthorized } from '../errors.js'
import type { ApiKeyClaims, ApiKeys } from '../workspaces/index.js'

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

/**
 * The `onRequest` hook of every route a workspace key opens. A callback hook, not an async one: a key this
 * process verified before (nearly every call) is answered at once, without a promise and the microtasks
 * Fastify's hook runner spends on one; only a new key waits for its signature check.
 */
export function requireWorkspaceKey(apiKeys: ApiKeys) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const key = keyFromHeader(request.headers.authorization)
    if (!key) {
      done(unauthorized('missing API key: send the workspace API key in the authorization header'))
      return
    }
    const known = apiKeys.verifiedBefore(key)
    if (known !== 'unknown') {
      admit(request, known, done)
      return
    }
    apiKeys.verify(key).then(
      (claims) => admit(request, claims, done),
      (err: Error) => done(err),
    )
  }
}

function admit(request: FastifyRequest, claims: ApiKeyClaims | undefined, done: (err?: Error) => void) {
  if (!claims) {
    done(unauthorized('invalid or revoked API key'))
    return
  }
  request.workspaceId = claims.workspaceId
  done()
}

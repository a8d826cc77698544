import type { FastifyReply, FastifyRequest } from 'fastify'
import type { MixpanelState } from './state.js'

/** A Query/Export style error: `{request, error}` with the path that failed (mixpanel/docs@ba22906:openapi/query.openapi.yaml, 400 responses). */
export function queryError(request: FastifyRequest, reply: FastifyReply, status: number, error: string) {
  return reply.code(status).send({ request: request.url, error })
}

/**
 * Service-account Basic auth (`username:secret`, Mixpanel's recommended scheme), and the project the call
 * names with `project_id`, which the account must be able to see (mixpanel/docs@ba22906:reference/service-accounts.mdx;
 * `project_id` "Required if using service account": openapi/query.openapi.yaml). Answers false after replying.
 */
export function checkServiceAccount(
  state: MixpanelState,
  request: FastifyRequest,
  reply: FastifyReply,
  projectId: string | undefined,
): boolean {
  const header = String(request.headers.authorization ?? '')
  const m = /^Basic\s+(\S+)$/i.exec(header)
  const [user, ...rest] = m
    ? Buffer.from(m[1] as string, 'base64')
        .toString('utf8')
        .split(':')
    : []
  if (user !== state.serviceAccount.username || rest.join(':') !== state.serviceAccount.secret) {
    void reply.code(401).send({ error: 'Invalid username or secret', status: 'error' })
    return false
  }
  if (projectId === undefined) return true
  if (projectId === '') {
    void queryError(request, reply, 400, 'project_id is required when authenticating with a service account')
    return false
  }
  if (projectId !== state.projectId) {
    void queryError(request, reply, 403, `Service account does not have access to project ${projectId}`)
    return false
  }
  return true
}

import type { FastifyInstance } from 'fastify'
import { FathomHttpError } from './errors.js'
import type { FathomState } from './state.js'

/** Every `/v1/` call takes `Authorization: Bearer <token>`. */
export function installFathomAuth(app: FastifyInstance, state: FathomState): void {
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/v1/')) return
    const match = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')
    if (!match || !state.apiKeys.has(match[1] as string)) throw new FathomHttpError(401, 'Unauthenticated.')
  })
}

import type { FastifyInstance } from 'fastify'
import { MESSAGES, PlausibleHttpError } from './errors.js'
import type { PlausibleState } from './state.js'

/** The Stats and Sites APIs take `Authorization: Bearer <key>`; `/api/event` takes none. */
export function installPlausibleAuth(app: FastifyInstance, state: PlausibleState): void {
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? ''
    if (!path.startsWith('/api/v1/') && !path.startsWith('/api/v2/')) return
    const header = request.headers.authorization
    if (!header) throw new PlausibleHttpError(401, MESSAGES.missingKey)
    const match = /^Bearer\s+(\S+)$/i.exec(header)
    if (!match || !state.apiKeys.has(match[1] as string))
      throw new PlausibleHttpError(401, MESSAGES.invalidKey)
    if (path.startsWith('/api/v1/sites') && !state.options.sitesApi) {
      throw new PlausibleHttpError(402, MESSAGES.sitesApiUnavailable)
    }
  })
}

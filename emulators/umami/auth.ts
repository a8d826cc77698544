import type { FastifyInstance } from 'fastify'
import { UmamiHttpError } from './errors.js'
import type { UmamiState } from './state.js'

/** Collect endpoints take no credentials (the website id is in the body). */
const PUBLIC = new Set(['/api/send', '/api/batch', '/api/heartbeat'])

/**
 * Umami Cloud (`/v1/...`) reads the key from `x-umami-api-key`; a self-hosted server (`/api/...`) from
 * `Authorization: Bearer`. Each refuses the other's scheme, and Cloud keys may not touch users.
 */
export function installUmamiAuth(app: FastifyInstance, state: UmamiState): void {
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? ''
    if (PUBLIC.has(path) || path.startsWith('/__emulator/')) return
    if (path.startsWith('/v1/')) {
      const key = request.headers['x-umami-api-key']
      if (typeof key !== 'string' || !state.apiKeys.has(key)) throw new UmamiHttpError(401)
      if (/^\/v1\/(users|me\/password)(\/|$)/.test(path)) throw new UmamiHttpError(403)
      return
    }
    if (path.startsWith('/api/')) {
      const match = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')
      if (!match || !state.apiKeys.has(match[1] as string)) throw new UmamiHttpError(401)
    }
  })
}

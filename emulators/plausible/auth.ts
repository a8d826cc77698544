import type { FastifyInstance } from 'fastify'
import { MESSAGES, PlausibleHttpError } from './errors.js'
import type { PlausibleState } from './state.js'

/**
 * The Stats and Sites APIs take `Authorization: Bearer <key>`; `/api/event` takes none
 * (plausible/analytics@03b49503:lib/plausible_web/plugs/authorize_public_api.ex). Every key holds the
 * implicit scopes `stats:read:*` and `sites:read:*`, so any key may list and read sites; creating,
 * changing and deleting sites needs `sites:provision:*`, and a key without it gets 401 "Invalid API
 * key…" (router: the sites:provision:* scope covers POST/PUT/DELETE /api/v1/sites).
 */
export function installPlausibleAuth(app: FastifyInstance, state: PlausibleState): void {
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? ''
    if (!path.startsWith('/api/v1/') && !path.startsWith('/api/v2/')) return
    // Community Edition has no Sites API routes at all (router: `on_ee do scope "/api/v1/sites"`).
    if (path.startsWith('/api/v1/sites') && state.options.edition === 'community') return
    // Only `Bearer <token>`, case as written, counts; anything else is a missing key, and the token is
    // trimmed (plausible/analytics@181ac2cf:lib/plausible_web/plugs/authorize_public_api.ex get_bearer_token).
    const header = request.headers.authorization
    if (!header?.startsWith('Bearer ')) throw new PlausibleHttpError(401, MESSAGES.missingKey)
    const key = header.slice('Bearer '.length).trim()
    const sites = path.startsWith('/api/v1/sites')
    if (!key || !state.apiKeys.has(key))
      throw new PlausibleHttpError(401, sites ? MESSAGES.invalidKeyForResource : MESSAGES.invalidKey)
    if (sites && request.method !== 'GET' && !state.provisionKeys.has(key)) {
      throw new PlausibleHttpError(401, MESSAGES.invalidKeyForResource)
    }
    // The stats scope looks the site up next: no site_id is a 400 before the query is read
    // (authorize_public_api.ex verify_by_scope, find_site(nil)).
    if (path === '/api/v2/query') {
      const body = request.body as { site_id?: unknown } | undefined
      if (!body || typeof body !== 'object' || body.site_id === undefined || body.site_id === null) {
        throw new PlausibleHttpError(400, MESSAGES.missingSiteId)
      }
    }
  })
}

import type { FastifyInstance } from 'fastify'
import { MESSAGES, PlausibleHttpError } from '../errors.js'
import { runQuery } from '../query/compute.js'
import { validateQuery } from '../query/validate.js'
import type { PlausibleState } from '../state.js'

export function registerQueryRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.post('/api/v2/query', async (request) => {
    const q = validateQuery(request.body)
    const site = state.sites.get(q.site_id)
    // Plausible does not tell an unknown site from one the key may not read.
    if (!site) throw new PlausibleHttpError(401, MESSAGES.invalidKey)
    return runQuery(q, site, state.visits.get(site.domain) ?? [], Date.now())
  })
}

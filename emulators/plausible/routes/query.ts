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
    // An `is` goal filter must name a configured goal (`contains` may match nothing)
    // (plausible/analytics@d5a94c98:lib/plausible/stats/filters/query_parser.ex validate_filtered_goals_exist).
    for (const [op, dim, clauses] of q.filters) {
      if (op !== 'is' || dim !== 'event:goal') continue
      const unknown = clauses.find((c) => !site.goals.includes(c))
      if (unknown !== undefined) {
        throw new PlausibleHttpError(
          400,
          `Invalid filters. The goal \`${unknown}\` is not configured for this site. Find out how to configure goals here: https://plausible.io/docs/stats-api#filtering-by-goals`,
        )
      }
    }
    return runQuery(q, site, state.visits.get(site.domain) ?? [], Date.now())
  })
}

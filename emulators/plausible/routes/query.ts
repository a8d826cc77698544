import type { FastifyInstance } from 'fastify'
import { MESSAGES, PlausibleHttpError } from '../errors.js'
import { runQuery } from '../query/compute.js'
import { validateQuery } from '../query/validate.js'
import type { PlausibleState } from '../state.js'

export function registerQueryRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.post('/api/v2/query', async (request) => {
    const q = validateQuery(request.body)
    // A site is found by its domain or the one it had before its last rename (`s.domain == ^site_id or
    // s.domain_changed_from == ^site_id`, plausible/analytics@181ac2cf:lib/plausible_web/plugs/
    // authorize_public_api.ex find_site).
    const site =
      state.sites.get(q.site_id) ?? [...state.sites.values()].find((s) => s.domainChangedFrom === q.site_id)
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

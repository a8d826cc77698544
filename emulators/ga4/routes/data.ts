import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireGrant } from '../../google/bearer.js'
import { GoogleApiError } from '../../google/errors.js'
import { parseRunReport } from '../report/request.js'
import { runReport } from '../report/run-report.js'
import { DATA_SCOPES, type Ga4State } from '../state.js'

const NO_ACCESS =
  'User does not have sufficient permissions for this property. To learn more about Property ID, see ' +
  'https://developers.google.com/analytics/devguides/reporting/data/v1/property-id.'

/**
 * Data API v1beta: `POST /v1beta/properties/{id}:runReport` (googleapis/googleapis@3597f7db:
 * google/analytics/data/v1beta/analytics_data_api.proto RunReport http rule). The method rides on the last
 * path segment after a colon (Google's custom-method syntax), so the route takes the whole segment apart.
 */
export function registerDataRoutes(app: FastifyInstance, state: Ga4State): void {
  app.post('/v1beta/properties/:segment', async (request: FastifyRequest) => {
    const segment = (request.params as { segment: string }).segment
    const m = /^(\d+):([A-Za-z]+)$/.exec(segment)
    if (!m)
      throw new GoogleApiError(
        404,
        `The requested URL ${request.url.split('?')[0]} was not found on this server.`,
      )
    requireGrant(state.bearer('analyticsdata.googleapis.com'), request, DATA_SCOPES)
    const [, id, method] = m as unknown as [string, string, string]
    if (method !== 'runReport') {
      throw new GoogleApiError(501, `The emulator does not model ${method}.`)
    }
    // An unknown or trashed property is a permission refusal at the Data API, not a 404 (403
    // PERMISSION_DENIED, https://developers.google.com/analytics/devguides/reporting/data/v1/errors).
    const property = state.admin.find(`properties/${id}`)
    if (!property || property.deleteTime) throw new GoogleApiError(403, NO_ACCESS)
    const req = parseRunReport(request.body)
    return runReport(
      req,
      {
        name: property.name,
        number: Number(id),
        timeZone: property.timeZone,
        currencyCode: property.currencyCode,
      },
      {
        seed: state.options.seed,
        factsPerDay: state.options.factsPerDay,
        now: state.now(),
        quotas: state.quotas,
      },
    )
  })
}

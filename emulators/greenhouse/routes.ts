import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid, notFound } from './errors.js'
import { sendPage } from './paging.js'
import { renderApplication, renderCandidate, renderOffer } from './render.js'
import type { ApplicationRecord, GreenhouseState } from './state.js'

type Query = Readonly<Record<string, string | string[] | undefined>>
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value)

/** "Timestamp must be in in ISO-8601 format" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, List Applications); anything else is a 422. */
function timestamp(query: Query, name: string): number | undefined {
  const text = one(query[name])
  if (text === undefined) return undefined
  const ms = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? Date.parse(text)
    : Number.NaN
  if (Number.isNaN(ms)) throw invalid(name, 'Must be an ISO-8601 timestamp')
  return ms
}

/** Numeric ids: a path id that is not a number names no record. */
function idOf(request: FastifyRequest): number {
  const text = (request.params as { id: string }).id
  if (!/^\d+$/.test(text)) throw notFound()
  return Number(text)
}

/**
 * GET /v1/applications filters (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, List Applications): `created_before` (before),
 * `created_after` and `last_activity_after` (at or after), `job_id` ("applications that involve this job",
 * candidates and prospects), `status` ("If anything else is used, an empty response will be returned rather
 * than an error"). The order is not documented: id ascending here.
 */
function filtered(state: GreenhouseState, query: Query): ApplicationRecord[] {
  const createdBefore = timestamp(query, 'created_before')
  const createdAfter = timestamp(query, 'created_after')
  const activityAfter = timestamp(query, 'last_activity_after')
  const jobText = one(query.job_id)
  if (jobText !== undefined && !/^\d+$/.test(jobText)) throw invalid('job_id', 'Must be an integer')
  const status = one(query.status)
  return state
    .orderedApplications()
    .filter(
      (a) =>
        (createdBefore === undefined || a.appliedAt < createdBefore) &&
        (createdAfter === undefined || a.appliedAt >= createdAfter) &&
        (activityAfter === undefined || a.lastActivityAt >= activityAfter) &&
        (jobText === undefined || a.jobs.some((j) => j.id === Number(jobText))) &&
        (status === undefined || a.status === status),
    )
}

export function registerRoutes(app: FastifyInstance, state: GreenhouseState): void {
  app.get('/v1/applications', async (request, reply) =>
    sendPage(request, reply, filtered(state, request.query as Query), renderApplication),
  )

  // "Retrieve an application by its id" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, Retrieve Application).
  app.get('/v1/applications/:id', async (request) => {
    const found = state.applications.get(idOf(request))
    if (!found) throw notFound()
    return renderApplication(found)
  })

  // "List the offers associated with an application", paged like every list (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_offers.md, List Offers for Application).
  app.get('/v1/applications/:id/offers', async (request, reply) => {
    const id = idOf(request)
    if (!state.applications.has(id)) throw notFound()
    return sendPage(request, reply, state.offers.get(id) ?? [], (o) => renderOffer(o, state))
  })

  // The candidate, with its applications embedded in full (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_candidates.md, Retrieve Candidate).
  app.get('/v1/candidates/:id', async (request) => {
    const found = state.candidates.get(idOf(request))
    if (!found) throw notFound()
    return renderCandidate(found, state)
  })
}

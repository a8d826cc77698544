import type { FastifyInstance, FastifyRequest } from 'fastify'
import { badRequest, notFound } from './errors.js'
import { many, millis, one, page } from './paging.js'
import { renderOffer, renderOpportunity } from './render.js'
import type { LeverState, OpportunityRecord } from './state.js'

type Query = Readonly<Record<string, string | string[] | undefined>>

/**
 * GET /v1/opportunities filters (https://hire.lever.co/developer/documentation#list-all-opportunities):
 * `posting_id`, `contact_id`, `stage_id`, `archive_reason_id` (each repeatable), `archived` (true/false),
 * `created_at_start`/`_end` and `updated_at_start`/`_end` in milliseconds, inclusive.
 */
function filtered(state: LeverState, query: Query): OpportunityRecord[] {
  const postings = many(query, 'posting_id')
  const contacts = many(query, 'contact_id')
  const stages = many(query, 'stage_id')
  const reasons = many(query, 'archive_reason_id')
  const archivedText = one(query.archived)
  if (archivedText !== undefined && archivedText !== 'true' && archivedText !== 'false') {
    throw badRequest('Invalid archived: expected true or false')
  }
  const range = (name: string) => [millis(query, `${name}_start`), millis(query, `${name}_end`)] as const
  const [createdFrom, createdTo] = range('created_at')
  const [updatedFrom, updatedTo] = range('updated_at')
  const within = (ms: number, from?: number, to?: number) =>
    (from === undefined || ms >= from) && (to === undefined || ms <= to)
  return state
    .ordered()
    .filter(
      (o) =>
        (!postings || o.applications.some((a) => a.posting !== null && postings.includes(a.posting))) &&
        (!contacts || contacts.includes(o.contact)) &&
        (!stages || stages.includes(o.stage)) &&
        (!reasons || (o.archived !== null && reasons.includes(o.archived.reason))) &&
        (archivedText === undefined || (o.archived !== null) === (archivedText === 'true')) &&
        within(o.createdAt, createdFrom, createdTo) &&
        within(o.updatedAt, updatedFrom, updatedTo),
    )
}

/** `expand` names objects to inline, repeatable (https://hire.lever.co/developer/documentation#customizing-the-response); only `applications` here. */
const expansions = (request: FastifyRequest) => new Set(many(request.query as Query, 'expand') ?? [])

export function registerRoutes(app: FastifyInstance, state: LeverState): void {
  app.get('/v1/opportunities', async (request) =>
    page(
      filtered(state, request.query as Query),
      request.query as Query,
      (o) => [o.createdAt, o.id],
      (o) => renderOpportunity(o, expansions(request)),
    ),
  )

  // A single record comes wrapped in `data` (https://hire.lever.co/developer/documentation#retrieve-a-single-opportunity).
  app.get('/v1/opportunities/:id', async (request) => {
    const found = state.opportunities.get((request.params as { id: string }).id)
    if (!found) throw notFound('opportunity')
    return { data: renderOpportunity(found, expansions(request)) }
  })

  // "List all offers" of an opportunity, paged like every list (https://hire.lever.co/developer/documentation#list-all-offers).
  app.get('/v1/opportunities/:id/offers', async (request) => {
    const id = (request.params as { id: string }).id
    if (!state.opportunities.has(id)) throw notFound('opportunity')
    const offers = [...(state.offers.get(id) ?? [])].sort((a, b) => b.createdAt - a.createdAt)
    return page(offers, request.query as Query, (o) => [o.createdAt, o.id], renderOffer)
  })

  // The account's pipeline stages (https://hire.lever.co/developer/documentation#list-all-stages).
  app.get('/v1/stages', async (request) =>
    page(
      state.stages,
      request.query as Query,
      (s) => [state.stages.indexOf(s), s.id],
      (s) => s,
    ),
  )

  // Archive reasons with their `type`, hired or non-hired (https://hire.lever.co/developer/documentation#list-all-archive-reasons).
  app.get('/v1/archive_reasons', async (request) =>
    page(
      state.archiveReasons,
      request.query as Query,
      (r) => [state.archiveReasons.indexOf(r), r.id],
      (r) => r,
    ),
  )
}

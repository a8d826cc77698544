import type { FastifyInstance, FastifyRequest } from 'fastify'
import { seesConfidential } from './auth.js'
import { badRequest, forbiddenConfidential, notFound } from './errors.js'
import { many, millis, one, page } from './paging.js'
import { renderOffer, renderOpportunity } from './render.js'
import type { LeverState, OpportunityRecord } from './state.js'

type Query = Readonly<Record<string, string | string[] | undefined>>

/**
 * `confidentiality`: "If unspecified, defaults to non-confidential. To get both confidential and
 * non-confidential opportunities you must specify all" (Lever's parameter text as carried by
 * tonyxiao/openSDKs@298c7b7:sdks/sdk-lever/src/lever.oas.ts; https://hire.lever.co/developer/documentation#confidential-data).
 * Only a key created with "Allow access to confidential data" sees confidential records
 * (https://help.lever.co/hc/en-us/articles/360042364412), and only a token granted `confidential:access:admin`.
 * For one without it "any request to retrieve confidential data will return an access error"
 * (#confidential-data): `confidential` is refused (403). Whether `all`, which asks for the non-confidential
 * ones too, is such a request Lever does not say: here (the emulator's assumption) it gets the non-confidential ones.
 */
function confidentialityFilter(state: LeverState, request: FastifyRequest) {
  const text = one((request.query as Query).confidentiality) ?? 'non-confidential'
  if (text !== 'non-confidential' && text !== 'confidential' && text !== 'all') {
    throw badRequest('Invalid confidentiality: expected non-confidential, confidential or all')
  }
  const allowed = seesConfidential(request, state)
  if (text === 'confidential' && !allowed) throw forbiddenConfidential()
  return (o: OpportunityRecord) =>
    o.confidentiality === 'non-confidential'
      ? text !== 'confidential'
      : allowed && (text === 'confidential' || text === 'all')
}

const appliedTo = (o: OpportunityRecord, postings: readonly string[]) =>
  o.applications.some((a) => a.posting !== null && postings.includes(a.posting))

/**
 * `posting_id`: "Opportunities that are applied to the specified posting"; `archived_posting_id`:
 * "opportunities for candidates that applied to the specified posting and then the application was archived"
 * (Lever's parameter texts, tonyxiao/openSDKs@298c7b7:sdks/sdk-lever/src/lever.oas.ts). Lever does not say
 * whether `posting_id` keeps the archived ones; the separate filter, and public clients that add both lists
 * up to get a posting's every candidate, suggest it does not, so by default it leaves them out (the awkward
 * reading); `postingFilterKeepsArchived` answers the other way, where the two lists overlap.
 *
 * GET /v1/opportunities filters (https://hire.lever.co/developer/documentation#list-all-opportunities):
 * `posting_id`, `contact_id`, `stage_id`, `archive_reason_id` (each repeatable), `archived` (true/false;
 * "If unspecified, results include both archived and unarchived Opportunities", tonyxiao/openSDKs@298c7b7:sdks/sdk-lever/src/lever.oas.ts),
 * `created_at_start`/`_end` and `updated_at_start`/`_end` in milliseconds, inclusive.
 */
function filtered(state: LeverState, query: Query): OpportunityRecord[] {
  const postings = many(query, 'posting_id')
  const archivedPostings = many(query, 'archived_posting_id')
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
        (!postings ||
          (appliedTo(o, postings) && (o.archived === null || state.postingFilterKeepsArchived))) &&
        (!archivedPostings || (o.archived !== null && appliedTo(o, archivedPostings))) &&
        (!contacts || contacts.includes(o.contact)) &&
        (!stages || stages.includes(o.stage)) &&
        (!reasons || (o.archived !== null && reasons.includes(o.archived.reason))) &&
        (archivedText === undefined || (o.archived !== null) === (archivedText === 'true')) &&
        within(o.createdAt, createdFrom, createdTo) &&
        within(o.updatedAt, updatedFrom, updatedTo),
    )
}

/**
 * The opportunity a path names, refused (403) when it is confidential and the request has no access to
 * confidential data: "any request to retrieve confidential data will return an access error" (#confidential-data).
 */
function readable(state: LeverState, request: FastifyRequest): OpportunityRecord {
  const found = state.opportunities.get((request.params as { id: string }).id)
  if (!found) throw notFound('opportunity')
  if (found.confidentiality === 'confidential' && !seesConfidential(request, state)) {
    throw forbiddenConfidential()
  }
  return found
}

/** `expand` names objects to inline, repeatable (https://hire.lever.co/developer/documentation#customizing-the-response); only `applications` here. */
const expansions = (request: FastifyRequest) => new Set(many(request.query as Query, 'expand') ?? [])

export function registerRoutes(app: FastifyInstance, state: LeverState): void {
  app.get('/v1/opportunities', async (request) =>
    page(
      filtered(state, request.query as Query).filter(confidentialityFilter(state, request)),
      request.query as Query,
      (o) => [o.createdAt, o.id],
      (o) => renderOpportunity(o, expansions(request)),
    ),
  )

  // A single record comes wrapped in `data` (https://hire.lever.co/developer/documentation#retrieve-a-single-opportunity).
  app.get('/v1/opportunities/:id', async (request) => ({
    data: renderOpportunity(readable(state, request), expansions(request)),
  }))

  // "List all offers" of an opportunity, paged like every list (https://hire.lever.co/developer/documentation#list-all-offers).
  app.get('/v1/opportunities/:id/offers', async (request) => {
    const id = readable(state, request).id
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

  // "Lists all archive reasons in your Lever account", inactive ones too (its example lists "Position filled"
  // with `status` inactive); the one parameter is `type`, hired or non-hired
  // (https://hire.lever.co/developer/documentation#list-all-archive-reasons). Lever's example answers
  // `type=hired` with a single object in `data`; a list is answered here, as for every list.
  app.get('/v1/archive_reasons', async (request) => {
    const type = one((request.query as Query).type)
    if (type !== undefined && type !== 'hired' && type !== 'non-hired') {
      throw badRequest('Invalid type: expected hired or non-hired')
    }
    return page(
      state.archiveReasons.filter((r) => type === undefined || r.type === type),
      request.query as Query,
      (r) => [state.archiveReasons.indexOf(r), r.id],
      (r) => r,
    )
  })
}

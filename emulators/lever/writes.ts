import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { badRequest, notFound } from './errors.js'
import { renderOpportunity } from './render.js'
import type { LeverState, OpportunityRecord } from './state.js'
import { LEVER_ORIGINS, type LeverEventData } from './webhooks.js'

/**
 * The opportunity writes that fire Lever's application webhooks: create an opportunity, change its stage,
 * archive or unarchive it (https://hire.lever.co/developer/documentation#create-an-opportunity,
 * #update-opportunity-stage, #update-opportunity-archived-state). Lever answers the opportunity in `data`.
 * JSON bodies only (Lever also takes multipart/form-data with files; not modelled).
 */

type Query = Readonly<Record<string, string | string[] | undefined>>
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value)

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body ?? {}
  if (typeof body !== 'object' || Array.isArray(body))
    throw badRequest('The request body must be a JSON object')
  return body as Record<string, unknown>
}

/** `perform_as`: "Perform this create on behalf of a specified user" — Required on create (#create-an-opportunity). */
function performAs(state: LeverState, request: FastifyRequest, required: boolean): string | undefined {
  const user = one((request.query as Query).perform_as)
  if (user === undefined) {
    if (required) throw badRequest('Missing required parameter: perform_as')
    return undefined
  }
  if (!state.users.includes(user)) throw badRequest(`Invalid perform_as: no user ${user} on this account`)
  return user
}

function opportunityOf(state: LeverState, request: FastifyRequest): OpportunityRecord {
  const found = state.opportunities.get((request.params as { id: string }).id)
  if (!found) throw notFound('opportunity')
  return found
}

/** The ids every candidate event names; `candidateId` is the deprecated name of the opportunity id (#applications). */
function eventData(o: OpportunityRecord, extra: Record<string, unknown> = {}): LeverEventData {
  return { opportunityId: o.id, candidateId: o.id, contactId: o.contact, ...extra }
}

const strings = (value: unknown, name: string): string[] | undefined => {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw badRequest(`Invalid ${name}: must be an array of strings`)
  }
  return value as string[]
}

function createOpportunity(state: LeverState, request: FastifyRequest): OpportunityRecord {
  const creator = performAs(state, request, true) as string
  const body = bodyOf(request)
  const now = Date.now()
  const stage = body.stage === undefined ? 'lead-new' : body.stage
  // "If omitted, the Opportunity will be placed into the 'New Lead' stage."
  if (typeof stage !== 'string' || !state.stageText(stage))
    throw badRequest(`Invalid stage: ${String(stage)}`)
  const origin = body.origin === undefined ? 'sourced' : body.origin
  if (typeof origin !== 'string' || !(LEVER_ORIGINS as readonly string[]).includes(origin)) {
    throw badRequest(`Invalid origin: must be one of ${LEVER_ORIGINS.join(', ')}`)
  }
  const postings = strings(body.postings, 'postings') ?? []
  // "Specifying multiple posting UIDs in this request will result in a rejected request."
  if (postings.length > 1) throw badRequest('Invalid postings: specify at most one posting per request')
  const posting = postings[0]
  if (posting !== undefined && !state.postings.includes(posting)) {
    throw badRequest(`Invalid postings: no posting ${posting} on this account`)
  }
  const owner = body.owner === undefined ? creator : body.owner
  if (typeof owner !== 'string' || !state.users.includes(owner)) throw badRequest('Invalid owner')
  // "time travel in the other direction is not permitted; you cannot create a candidate in the future."
  const createdAt = body.createdAt === undefined ? now : body.createdAt
  if (typeof createdAt !== 'number' || !Number.isInteger(createdAt) || createdAt > now) {
    throw badRequest('Invalid createdAt: a past timestamp in milliseconds')
  }
  const contact = body.contact === undefined ? randomUUID() : body.contact
  if (typeof contact !== 'string' || (body.contact !== undefined && !state.contactExists(contact))) {
    throw badRequest(`Invalid contact: no contact ${String(contact)} on this account`)
  }
  const id = randomUUID()
  const opportunity: OpportunityRecord = {
    id,
    contact,
    name: typeof body.name === 'string' ? body.name : '',
    createdAt,
    updatedAt: now,
    lastAdvancedAt: createdAt,
    stage,
    archived: null,
    owner,
    sources: strings(body.sources, 'sources') ?? [],
    origin,
    // "An Opportunity will have no more than one Application" (#applications): made when a posting is given.
    applications:
      posting === undefined
        ? []
        : [{ id: randomUUID(), opportunityId: id, createdAt, type: 'user', posting, user: creator }],
    // "If you are creating a confidential opportunity, you must provide a posting UID for a confidential job posting."
    confidentiality:
      posting !== undefined && state.isConfidentialPosting(posting) ? 'confidential' : 'non-confidential',
  }
  state.opportunities.set(id, opportunity)
  const application = opportunity.applications[0]
  // "Application created — Triggers when a candidate application is created" (#event-payloads): an opportunity
  // without a posting has no application, so nothing is sent for it.
  if (application) {
    state.webhooks.trigger(
      'applicationCreated',
      origin,
      eventData(opportunity, { applicationId: application.id }),
    )
  }
  return opportunity
}

function changeStage(state: LeverState, request: FastifyRequest): OpportunityRecord {
  performAs(state, request, false)
  const opportunity = opportunityOf(state, request)
  const stage = bodyOf(request).stage
  if (typeof stage !== 'string' || !state.stageText(stage))
    throw badRequest(`Invalid stage: ${String(stage)}`)
  const from = opportunity.stage
  if (from === stage) return opportunity
  const now = Date.now()
  opportunity.stage = stage
  opportunity.lastAdvancedAt = now
  opportunity.updatedAt = now
  // The fields of Lever's example delivery (#example-delivery).
  state.webhooks.trigger(
    'candidateStageChange',
    opportunity.origin,
    eventData(opportunity, { toStageId: stage, fromStageId: from }),
  )
  return opportunity
}

/**
 * "If an Opportunity is already archived, its archive reason can be changed or if null is specified as the
 * reason, it will be unarchived. If an Opportunity is active, it will be archived with the reason provided."
 * A reason of type `hired` also marks the candidate hired ("Candidate hired — Triggers when a candidate is marked
 * as hired"); Lever does not say whether the archive change is sent then too: here both are.
 */
function changeArchived(state: LeverState, request: FastifyRequest): OpportunityRecord {
  performAs(state, request, false)
  const opportunity = opportunityOf(state, request)
  const body = bodyOf(request)
  if (!('reason' in body)) throw badRequest('Missing required field: reason')
  const reason = body.reason
  if (reason !== null && (typeof reason !== 'string' || !state.archiveReasons.some((r) => r.id === reason))) {
    throw badRequest(`Invalid reason: no archive reason ${String(reason)} on this account`)
  }
  const from = opportunity.archived
  if (reason === null && from === null) return opportunity
  const now = Date.now()
  opportunity.archived = reason === null ? null : { archivedAt: now, reason }
  opportunity.updatedAt = now
  state.webhooks.trigger(
    'candidateArchiveChange',
    opportunity.origin,
    eventData(opportunity, { fromArchived: from, toArchived: opportunity.archived }),
  )
  if (reason !== null && state.archiveReasons.find((r) => r.id === reason)?.type === 'hired') {
    state.webhooks.trigger('candidateHired', opportunity.origin, eventData(opportunity))
  }
  return opportunity
}

/**
 * The emulator's own hook, not Lever's API (whose documentation lists deleted opportunities but no delete
 * endpoint): deletes an opportunity as a Lever user would in the app, firing `candidateDeleted`.
 */
export function deleteOpportunity(state: LeverState, id: string): boolean {
  const opportunity = state.opportunities.get(id)
  if (!opportunity) return false
  state.opportunities.delete(id)
  state.offers.delete(id)
  state.webhooks.trigger('candidateDeleted', opportunity.origin, eventData(opportunity, { deletedBy: null }))
  return true
}

export function registerWriteRoutes(app: FastifyInstance, state: LeverState): void {
  // 201 Created with the record in `data` (#responses-and-errors).
  app.post('/v1/opportunities', async (request, reply) =>
    reply.code(201).send({ data: renderOpportunity(createOpportunity(state, request), new Set()) }),
  )
  app.put('/v1/opportunities/:id/stage', async (request) => ({
    data: renderOpportunity(changeStage(state, request), new Set()),
  }))
  app.put('/v1/opportunities/:id/archived', async (request) => ({
    data: renderOpportunity(changeArchived(state, request), new Set()),
  }))
}

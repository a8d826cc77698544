import type { FastifyInstance } from 'fastify'
import { APPLICATION_STATUS_FILTERS, MAX_IDS } from './constants.js'
import { invalid } from './errors.js'
import { listQuery, sendPage } from './paging.js'
import { renderApplication, renderOffer, renderRejectionReason, renderSource } from './render.js'
import {
  type ApplicationRecord,
  type GreenhouseState,
  type OfferRecord,
  REJECTION_REASONS,
  SOURCES,
} from './state.js'

type Filters = Readonly<Record<string, string>>

/**
 * `ids`, `candidate_ids`...: comma-separated whole numbers, at most 50 ("Greenhouse caps every *_ids filter
 * at maxItems: 50", airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml's unit tests;
 * "the documented `maxItems: 50` on every `*_ids` filter",
 * airbytehq/airbyte@0e9d87b979e98e195f646935425d947e41e59c55:airbyte-integrations/connectors/source-greenhouse/AGENTS.md;
 * "`ids` (max 50)" in the public inventory of the v3 reference, see README), else a 422 naming the parameter.
 */
function idList(filters: Filters, name: string): Set<number> | undefined {
  const text = filters[name]
  if (text === undefined) return undefined
  if (!/^\d+(,\d+)*$/.test(text)) throw invalid(name, 'Must be a comma-separated list of integers')
  const ids = text.split(',').map(Number)
  if (ids.length > MAX_IDS) throw invalid(name, `At most ${MAX_IDS} ids`)
  return new Set(ids)
}

const OPERATORS = ['gte', 'lte', 'gt', 'lt'] as const

/**
 * `created_at`/`updated_at` "supporting operators such as gte, lte, gt, and lt", written `gte|<ISO-8601>`
 * (https://harvestdocs.greenhouse.io/docs/list-endpoints: `created_at=gte|2024-01-01T00:00:00Z`). Several
 * operators chain as `gte|a|lte|b` (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml: `'gte|' ~ start ~ '|lte|' ~ end`). Anything else is a 422.
 */
function timeRange(filters: Filters, name: string): ((ms: number) => boolean) | undefined {
  const text = filters[name]
  if (text === undefined) return undefined
  const parts = text.split('|')
  const tests: ((ms: number) => boolean)[] = []
  for (let i = 0; i < parts.length; i += 2) {
    const op = parts[i] as (typeof OPERATORS)[number]
    const at = Date.parse(parts[i + 1] ?? '')
    if (!OPERATORS.includes(op) || !/^\d{4}-\d{2}-\d{2}T/.test(parts[i + 1] ?? '') || Number.isNaN(at))
      throw invalid(name, 'Must be <gte|lte|gt|lt>|<ISO-8601 timestamp>, chained with |')
    tests.push(
      op === 'gte'
        ? (ms) => ms >= at
        : op === 'lte'
          ? (ms) => ms <= at
          : op === 'gt'
            ? (ms) => ms > at
            : (ms) => ms < at,
    )
  }
  return (ms) => tests.every((t) => t(ms))
}

/** `status`: a value of the filter's own enumeration (see APPLICATION_STATUS_FILTERS), else 422. */
function statusFilter(filters: Filters): string | undefined {
  const text = filters.status
  if (text === undefined) return undefined
  const status = APPLICATION_STATUS_FILTERS[text]
  if (!status) throw invalid('status', `Must be one of ${Object.keys(APPLICATION_STATUS_FILTERS).join(', ')}`)
  return status
}

/**
 * GET /v3/applications filters (https://harvestdocs.greenhouse.io/docs/list-endpoints): `ids`, parent
 * resources (`candidate_ids`, `job_ids`; a prospect's jobs by `prospective_job_ids`, as public v3 clients
 * filter them),
 * `created_at`/`updated_at` ranges and `status` (`active` lists the applications `in_process`).
 * The order is not documented: id ascending here.
 */
function applications(state: GreenhouseState, filters: Filters): ApplicationRecord[] {
  const ids = idList(filters, 'ids')
  const candidates = idList(filters, 'candidate_ids')
  const jobs = idList(filters, 'job_ids')
  const prospectiveJobs = idList(filters, 'prospective_job_ids')
  const created = timeRange(filters, 'created_at')
  const updated = timeRange(filters, 'updated_at')
  const status = statusFilter(filters)
  return state
    .orderedApplications()
    .filter(
      (a) =>
        (!ids || ids.has(a.id)) &&
        (!candidates || candidates.has(a.candidateId)) &&
        (!jobs || (!a.prospect && a.jobs.some((j) => jobs.has(j.id)))) &&
        (!prospectiveJobs || (a.prospect && a.jobs.some((j) => prospectiveJobs.has(j.id)))) &&
        (!created || created(a.createdAt)) &&
        (!updated || updated(a.updatedAt)) &&
        (status === undefined || a.status === status),
    )
}

/**
 * GET /v3/offers: offers are their own resource, filtered by their parent (`application_ids`), `ids` and the
 * time ranges (https://harvestdocs.greenhouse.io/docs/list-endpoints). Order: id ascending (ASSUMPTION).
 */
function offers(state: GreenhouseState, filters: Filters): OfferRecord[] {
  const ids = idList(filters, 'ids')
  const apps = idList(filters, 'application_ids')
  const created = timeRange(filters, 'created_at')
  const updated = timeRange(filters, 'updated_at')
  return [...state.offers.values()]
    .flat()
    .filter(
      (o) =>
        (!ids || ids.has(o.id)) &&
        (!apps || apps.has(o.applicationId)) &&
        (!created || created(o.createdAt)) &&
        (!updated || updated(o.updatedAt)),
    )
    .sort((a, b) => a.id - b.id)
}

/**
 * GET /v3/sources: the organization's sources, filtered by `ids` (every v3 list takes `ids`,
 * https://harvestdocs.greenhouse.io/docs/list-endpoints). Order: id ascending (ASSUMPTION).
 */
function sources(filters: Filters) {
  const ids = idList(filters, 'ids')
  return SOURCES.filter((s) => !ids || ids.has(s.id))
}

/**
 * GET /v3/rejection_reasons, filtered by `ids`. Greenhouse's built-in reasons are listed only with
 * `include_defaults=true`: "`include_defaults` adds Greenhouse's built-in reasons to the organisation's own.
 * Off by default" (a public v3 client's list-rejection-reasons action and its test "the defaults are
 * opt-in"; the parameter is in the v3 reference's inventory, "0153 · GET /v3/rejection_reasons").
 * ASSUMPTION: a value other than true/false is a 422.
 */
function rejectionReasons(filters: Filters) {
  const ids = idList(filters, 'ids')
  const flag = filters.include_defaults
  if (flag !== undefined && flag !== 'true' && flag !== 'false')
    throw invalid('include_defaults', 'Must be true or false')
  return REJECTION_REASONS.filter((r) => (flag === 'true' || !r.builtIn) && (!ids || ids.has(r.id)))
}

export function registerRoutes(app: FastifyInstance, state: GreenhouseState): void {
  app.get('/v3/applications', async (request, reply) => {
    const q = listQuery(request)
    return sendPage(request, reply, q, applications(state, q.query), renderApplication)
  })
  app.get('/v3/offers', async (request, reply) => {
    const q = listQuery(request)
    return sendPage(request, reply, q, offers(state, q.query), (o) =>
      renderOffer(o, state.applications.get(o.applicationId)),
    )
  })
  app.get('/v3/sources', async (request, reply) => {
    const q = listQuery(request)
    return sendPage(request, reply, q, sources(q.query), renderSource)
  })
  app.get('/v3/rejection_reasons', async (request, reply) => {
    const q = listQuery(request)
    return sendPage(request, reply, q, rejectionReasons(q.query), renderRejectionReason)
  })
}

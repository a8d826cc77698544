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

/**
 * Every parameter a list takes here. Greenhouse's lists take more than the emulator models (the v3 reference
 * gives each endpoint its own filters: "certain date, time, boolean and enum fields are filterable depending
 * on the resource", https://harvestdocs.greenhouse.io/docs/list-endpoints), and what Greenhouse does with a
 * parameter it does not know is not documented in anything we could read. Ignoring one would answer an
 * unfiltered list where Greenhouse answers a filtered one, so a parameter outside this list is a 422 naming it
 * (ours: the emulator's limit, said out loud, not a claim about Greenhouse). `cursor` and `per_page` are
 * taken by listQuery before the filters.
 */
const UNIVERSAL = ['ids', 'created_at', 'updated_at']

function onlyModelled(filters: Filters, path: string, modelled: readonly string[]): void {
  for (const name of Object.keys(filters)) {
    if (!UNIVERSAL.includes(name) && !modelled.includes(name)) {
      throw invalid(
        name,
        `The emulator does not model the ${name} parameter of ${path}; it models ${[...UNIVERSAL, ...modelled].join(', ')}`,
      )
    }
  }
}

/** `prospect`, a boolean filter of GET /v3/applications (see `applications`): `true` or `false`, else 422. */
function booleanFilter(filters: Filters, name: string): boolean | undefined {
  const text = filters[name]
  if (text === undefined) return undefined
  if (text !== 'true' && text !== 'false') throw invalid(name, 'Must be true or false')
  return text === 'true'
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
 * `created_at`/`updated_at` ranges and `status` (`active` lists the applications `in_process`). Also the
 * endpoint's own filters as the public inventory of the v3 reference lists them ("0015 · GET
 * /v3/applications": `job_post_ids`, `source_ids`, `referrer_ids`, `stage_ids` "the same value as `stage_id`
 * on each application", `stage_name` "exact, case-sensitive", `last_activity_at` with the time operators,
 * `prospect` a boolean), each matched against the field of the same name in the record as rendered. Not
 * modelled (a 422, see onlyModelled): `custom_field_option_id` and the `fields` selector.
 * The order is not documented: id ascending here.
 */
const APPLICATION_FILTERS = [
  'candidate_ids',
  'job_ids',
  'prospective_job_ids',
  'job_post_ids',
  'source_ids',
  'referrer_ids',
  'stage_ids',
  'stage_name',
  'status',
  'last_activity_at',
  'prospect',
]

function applications(state: GreenhouseState, filters: Filters): ApplicationRecord[] {
  onlyModelled(filters, '/v3/applications', APPLICATION_FILTERS)
  const ids = idList(filters, 'ids')
  const candidates = idList(filters, 'candidate_ids')
  const jobs = idList(filters, 'job_ids')
  const prospectiveJobs = idList(filters, 'prospective_job_ids')
  const jobPosts = idList(filters, 'job_post_ids')
  const sources = idList(filters, 'source_ids')
  const referrers = idList(filters, 'referrer_ids')
  const stages = idList(filters, 'stage_ids')
  const stageName = filters.stage_name
  const created = timeRange(filters, 'created_at')
  const updated = timeRange(filters, 'updated_at')
  const active = timeRange(filters, 'last_activity_at')
  const status = statusFilter(filters)
  const prospect = booleanFilter(filters, 'prospect')
  const has = (set: Set<number> | undefined, value: unknown) =>
    !set || (typeof value === 'number' && set.has(value))
  // The record as rendered, only when a filter matches against it (a list of many thousands renders a page).
  const rendered = jobPosts || sources || referrers || stages || stageName !== undefined
  return state.orderedApplications().filter((a) => {
    const row: Record<string, unknown> = rendered ? renderApplication(a) : {}
    return (
      (!ids || ids.has(a.id)) &&
      (!candidates || candidates.has(a.candidateId)) &&
      (!jobs || (!a.prospect && a.jobs.some((j) => jobs.has(j.id)))) &&
      (!prospectiveJobs || (a.prospect && a.jobs.some((j) => prospectiveJobs.has(j.id)))) &&
      has(jobPosts, row.job_post_id) &&
      has(sources, row.source_id) &&
      has(referrers, row.referrer_id) &&
      has(stages, row.stage_id) &&
      (stageName === undefined || row.stage_name === stageName) &&
      (!created || created(a.createdAt)) &&
      (!updated || updated(a.updatedAt)) &&
      (!active || active(a.lastActivityAt)) &&
      (status === undefined || a.status === status) &&
      (prospect === undefined || a.prospect === prospect)
    )
  })
}

/**
 * GET /v3/offers: offers are their own resource, filtered by their parent (`application_ids`), `ids` and the
 * time ranges (https://harvestdocs.greenhouse.io/docs/list-endpoints). Order: id ascending (ASSUMPTION).
 */
function offers(state: GreenhouseState, filters: Filters): OfferRecord[] {
  onlyModelled(filters, '/v3/offers', ['application_ids'])
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
  onlyModelled(filters, '/v3/sources', [])
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
  onlyModelled(filters, '/v3/rejection_reasons', ['include_defaults'])
  const ids = idList(filters, 'ids')
  const flag = filters.include_defaults
  if (flag !== undefined && flag !== 'true' && flag !== 'false')
    throw invalid('include_defaults', 'Must be true or false')
  return REJECTION_REASONS.filter((r) => (flag === 'true' || !r.builtIn) && (!ids || ids.has(r.id)))
}

export function registerRoutes(app: FastifyInstance, state: GreenhouseState): void {
  app.get('/v3/applications', async (request, reply) => {
    const q = listQuery(request, state)
    return sendPage(request, reply, q, applications(state, q.query), renderApplication, state)
  })
  app.get('/v3/offers', async (request, reply) => {
    const q = listQuery(request, state)
    return sendPage(
      request,
      reply,
      q,
      offers(state, q.query),
      (o) => renderOffer(o, state.applications.get(o.applicationId)),
      state,
    )
  })
  app.get('/v3/sources', async (request, reply) => {
    const q = listQuery(request, state)
    return sendPage(request, reply, q, sources(q.query), renderSource, state)
  })
  app.get('/v3/rejection_reasons', async (request, reply) => {
    const q = listQuery(request, state)
    return sendPage(request, reply, q, rejectionReasons(q.query), renderRejectionReason, state)
  })
}

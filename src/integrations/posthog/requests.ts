import { ApiError, badRequest, ProviderError } from '../../errors.js'
import { rawThenOwn } from '../raw-lists.js'
import type { HandlerContext, ListQuery } from '../types.js'
import { isTimeZone } from '../zones.js'
import { apiBaseUrl, ingestionBaseUrl } from './hosts.js'
import { querySlot, SLOT_WAIT_MS } from './query-slots.js'
import type { HogQLResponse, PosthogCapture, PosthogProject } from './types.js'

/**
 * The PostHog calls every handler makes, in one place: which project, how `raw` parameters travel, HogQL
 * queries, and capture.
 *
 * `raw` parameters (the decoded `raw` query parameter): on REST calls they join the query string; on HogQL
 * and capture calls, which are JSON bodies, they become top-level body keys (such as `refresh=force_blocking`
 * for the query API, or `historical_migration=true` for capture), JSON-decoded when they look like JSON
 * (`{…}`, `[…]`, true, false, numbers). They never replace what the integration itself sends.
 */

const PROJECT_ID = /^\d+$/

/** The PostHog project a request is about: the `property_id` filter, else the connection's default project. */
export function projectIdOf(ctx: HandlerContext, propertyId?: unknown): string {
  const id = typeof propertyId === 'string' && propertyId !== '' ? propertyId : ctx.settings.project_id
  if (id === undefined) {
    throw badRequest(
      'property_id is required: this PostHog connection has no default project; re-verify the connection',
    )
  }
  return checkedProjectId(id)
}

function checkedProjectId(id: string): string {
  if (!PROJECT_ID.test(id)) throw badRequest(`property_id: '${id}' is not a PostHog project id (a number)`)
  return id
}

/**
 * A list's `property_id` that names no PostHog project (not a number), as `projectIdOf` refuses it: for the
 * handlers' `checkList`, before any list and when a webhook is made.
 */
export function checkPropertyFilter(q: ListQuery): void {
  const id = q.filters.property_id
  if (typeof id === 'string' && id !== '') checkedProjectId(id)
}

/**
 * The REST query string: the caller's `raw` parameters, then our defined ones. The names ours would
 * replace are refused first (the objects' `rawOwned`, below); a unified value not given erases nothing.
 */
export function restQuery(
  ctx: HandlerContext,
  own: Readonly<Record<string, string | number | undefined>> = {},
): Record<string, string | number> {
  return rawThenOwn(ctx.rawParams, own)
}

const PAGING = 'Unigate pages with limit and offset'

/** REST lists Unigate pages and searches (`/api/projects/`, `…/persons/`): a raw one would lose to ours. */
export const REST_LIST_OWNED = { limit: PAGING, offset: PAGING, search: 'use query' } as const

/** The HogQL body's `query` and `name` are Unigate's own: a raw one would lose to them without a word. */
export const HOGQL_OWNED = {
  query: 'Unigate sends its own HogQL query; narrow it with the unified filters',
  name: 'Unigate names its own HogQL query',
} as const

/** A visitor is looked up by `…/persons/?distinct_id=`: a raw one would lose to the visitor's. */
export const PERSON_LOOKUP_OWNED = { distinct_id: 'use visitor_id' } as const

function jsonish(value: string): unknown {
  if (/^[[{]/.test(value) || value === 'true' || value === 'false' || /^-?\d+(\.\d+)?$/.test(value)) {
    try {
      return JSON.parse(value)
    } catch {
      return value
    }
  }
  return value
}

function bodyWithRawParams(ctx: HandlerContext, own: Record<string, unknown>): Record<string, unknown> {
  const extra: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(ctx.rawParams)) extra[k] = jsonish(v)
  return { ...extra, ...own }
}

/**
 * `/query/` answers from PostHog's cache unless told otherwise (a missing `refresh` means `blocking`: a
 * cached result up to 5 minutes old), so an event created a moment ago would be missing from a list read
 * right after. Every read asks for `force_blocking` (always calculate); a caller who prefers the cache
 * passes `raw=refresh=blocking`.
 */
const FRESH = 'force_blocking'

/**
 * Whose queue a query waits in. Connections share a project's queue only for the project they were verified
 * with (`settings.project_id`, the key's current team at connection): that project is theirs. `property_id`
 * may name any project id, and ids are small sequential numbers, so a connection of another workspace could
 * otherwise fill a project's queue with queries PostHog then refuses (its key has no access there) and have
 * that project's own connections answered 429. Queries to other projects wait in the connection's own queue.
 */
function queryLane(ctx: HandlerContext, projectId: string): string {
  const project = `${apiBaseUrl(ctx.credentials)}|${projectId}`
  return projectId === ctx.settings.project_id ? project : `${project}|${ctx.connectionId}`
}

/**
 * Runs one HogQL query in a project; a query is a read, so a 429 or 5xx may be retried. At most
 * `QUERIES_PER_TEAM` run at once per team (query-slots.ts), counted as PostHog counts them: each attempt
 * until its answer begins (its status and headers), not while its body is read. An attempt takes the team's
 * slot last, once it holds its connection's and workspace's: one waiting for those holds none of the team's.
 * `maxRows` is the query's own LIMIT: an answer of more rows is not PostHog's (it applies the LIMIT), and is
 * refused before any row is mapped. A connection's `api_url` may name a server of its creator's, which could
 * otherwise answer a page of `limit=1` with hundreds of thousands of rows, each mapped, shaped and written
 * out while every other request of the process waited (seconds of CPU for one request).
 */
export async function runHogQL(
  ctx: HandlerContext,
  projectId: string,
  query: string,
  name: string,
  maxRows: number,
): Promise<HogQLResponse> {
  const own = { query: { kind: 'HogQLQuery', query }, name }
  const body = { refresh: FRESH, ...bodyWithRawParams(ctx, own) }
  const team = queryLane(ctx, projectId)
  const bounds = { maxWaiting: ctx.client.options.transport.limiter.limits.queue, maxWaitMs: SLOT_WAIT_MS }
  // Each attempt's own, taken once the attempt holds its connection's and workspace's provider slots.
  let free: (() => void) | undefined
  const res = await ctx.client
    .json<HogQLResponse>({
      method: 'POST',
      path: `/api/projects/${projectId}/query/`,
      body,
      idempotent: true,
      admit: async () => {
        free = await querySlot(team, bounds)
        return free
      },
      // A 200 is a finished query (PostHog answers 202 for one still running, in its async refresh modes),
      // it ends the call (no attempt follows a 2xx), and PostHog freed the query's slot before it answered:
      // the next query may go while this answer's body is read and parsed.
      onAnswer: (status) => {
        if (status === 200) free?.()
      },
    })
    .catch((err: unknown) => {
      throw queryLimitError(err)
    })
  if (!res || !Array.isArray(res.results) || !Array.isArray(res.columns)) {
    throw new ProviderError(502, 'PostHog answered the query without columns and results')
  }
  if (res.results.length > maxRows) {
    throw new ApiError(
      502,
      `PostHog answered ${res.results.length} rows to a query limited to ${maxRows}; not passed on`,
    )
  }
  return res
}

/** PostHog's 504 for a query stopped at its execution time limit, explained in terms a caller can act on. */
function queryLimitError(err: unknown): unknown {
  if (err instanceof ProviderError && err.status === 504 && /max execution time/i.test(err.providerMessage)) {
    return new ProviderError(
      504,
      `${err.providerMessage} (PostHog stops a query after 60 seconds; narrow the time range with start_gte and end_lt)`,
    )
  }
  return err
}

/** PostHog's answer for a record that does not exist, for lookups that come back empty rather than 404. */
export function notFoundAtPosthog(): ProviderError {
  return new ProviderError(404, 'Not found.')
}

/** Where capture puts a project's events: the project API key and the id of the team that key belongs to. */
export interface CaptureTeam {
  readonly apiKey: string
  /** Ingestion stamps events with it and derives new persons' uuids from it (visitor-ids.ts `personUuidOf`). */
  readonly teamId: string
}

/**
 * The team every `/api/projects/{id}/` call reads (PostHog routes it to the team with the project's id, the
 * project's first environment: PostHog/posthog@00f00ca85a4c:posthog/api/routing.py `team_id`, "KLUDGE"),
 * whose key capture must use so that created events and visitors land where lists read. Verification keeps
 * that team's key and id for the default project (definition.ts); a connection verified before it kept the
 * user's current team's key, which may be another environment's, so it reads the project like any other:
 * the project's `api_token` is its first team's (PostHog/posthog@5debee2fd96b:posthog/api/shared.py
 * `team_passthrough_fields`), and that team's id is the project's (PostHog/posthog@223a76b30414:
 * posthog/models/project.py `create_with_team`, `passthrough_team`).
 */
export async function captureTeam(ctx: HandlerContext, projectId: string): Promise<CaptureTeam> {
  const { project_api_key: apiKey, team_id: teamId } = ctx.settings
  if (projectId === ctx.settings.project_id && apiKey && teamId) return { apiKey, teamId }
  const project = await ctx.client.json<PosthogProject>({ path: `/api/projects/${projectId}/` })
  if (typeof project.api_token !== 'string')
    throw new ProviderError(502, `PostHog project ${projectId} has no api_token`)
  return { apiKey: project.api_token, teamId: projectId }
}

/**
 * Sends one event to the ingestion endpoint. Capture deduplicates on the event uuid we generate, so a
 * retry after a 429 or 5xx cannot create a duplicate: it is idempotent.
 */
export async function capture(ctx: HandlerContext, payload: PosthogCapture): Promise<void> {
  await ctx.client.send({
    method: 'POST',
    path: '/i/v0/e/',
    baseUrl: ingestionBaseUrl(ctx.credentials),
    // Capture authenticates with the project key in the body; the personal key stays on the API host.
    authenticate: false,
    body: bodyWithRawParams(ctx, { ...payload }),
    idempotent: true,
  })
}

/**
 * The project's time zone, in which HogQL cut days and hours: the one a query's answer names (its
 * `timezone`), else the project's `timezone` setting (one more call; older PostHogs may not answer it).
 */
export async function zoneOf(ctx: HandlerContext, projectId: string, answered?: string): Promise<string> {
  const zone =
    answered ??
    (await ctx.client.json<PosthogProject>({ path: `/api/projects/${projectId}/` })).timezone ??
    'UTC'
  if (!isTimeZone(zone)) {
    throw new ProviderError(
      502,
      `PostHog project ${projectId} has a time zone this server does not know: ${zone}`,
    )
  }
  return zone
}

import { badRequest, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import {
  SESSION_COLUMNS,
  SESSION_SORTS,
  sessionDetailsQuery,
  sessionQuery,
  sessionsListQuery,
  type VisitorFilter,
} from './hogql.js'
import { fromPosthogSession, type SessionDetails } from './mappers.js'
import { visitorFilterOf, visitorsOfDistinctIds } from './person-lookup.js'
import {
  checkPropertyFilter,
  HOGQL_OWNED,
  notFoundAtPosthog,
  PERSON_LOOKUP_OWNED,
  projectIdOf,
  runHogQL,
} from './requests.js'
import { boundedRange, sessionLookupRange } from './windows.js'

/** Fields the sessions table lacks: they come from the session's events, in one extra query per page. */
const DETAIL_FIELDS = ['device', 'browser', 'os', 'country', 'city', 'events_count'] as const

/** `raw.<name>` asks for one more sessions-table column (PostHog refuses a name it does not know). */
function extraColumns(rawNames: readonly string[]): string[] {
  return [...new Set(rawNames)].filter((n) => !(SESSION_COLUMNS as readonly string[]).includes(n))
}

/**
 * PostHog's 400 for a `raw.<name>` the sessions table lacks (HogQL's "Unable to resolve field: <name>"), as
 * the 400 of the parameter that asked for it: the caller's `fields`, not something PostHog was asked itself.
 */
function unknownColumn(err: unknown, extra: readonly string[]): Error | undefined {
  if (!(err instanceof ProviderError) || err.status !== 400) return undefined
  const name = /Unable to resolve field: (\S+)/.exec(err.providerMessage)?.[1]
  if (name === undefined || !extra.includes(name)) return undefined
  return badRequest(
    `fields: raw.${name}: PostHog's sessions table has no column '${name}' (PostHog: ${err.providerMessage})`,
  )
}

function zip(keys: readonly string[], row: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  keys.forEach((k, i) => {
    out[k] = row[i]
  })
  return out
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

async function detailsOf(
  ctx: HandlerContext,
  projectId: string,
  rows: readonly Record<string, unknown>[],
): Promise<Map<string, SessionDetails>> {
  const details = new Map<string, SessionDetails>()
  if (!DETAIL_FIELDS.some((f) => ctx.fields.slow.has(f)) || rows.length === 0) return details
  const ids = rows.map((r) => String(r.session_id))
  const starts = rows.map((r) => Date.parse(String(r.$start_timestamp))).filter((t) => !Number.isNaN(t))
  const ends = rows.map((r) => Date.parse(String(r.$end_timestamp))).filter((t) => !Number.isNaN(t))
  if (starts.length === 0 || ends.length === 0) return details
  const query = sessionDetailsQuery(ids, new Date(Math.min(...starts)), new Date(Math.max(...ends)))
  const res = await runHogQL(ctx, projectId, query, 'unigate session details', ids.length)
  for (const [id, device, browser, os, country, city, count] of res.results) {
    details.set(String(id), {
      device: text(device),
      browser: text(browser),
      os: text(os),
      country: text(country),
      city: text(city),
      events_count: typeof count === 'number' ? count : undefined,
    })
  }
  return details
}

async function readSessions(
  ctx: HandlerContext,
  projectId: string,
  query: string,
  maxRows: number,
  extra: readonly string[],
  visitor?: VisitorFilter,
) {
  const res = await runHogQL(ctx, projectId, query, 'unigate session list', maxRows).catch((err: unknown) => {
    throw unknownColumn(err, extra) ?? err
  })
  const keys = [...SESSION_COLUMNS, ...extra]
  const rows = res.results.map((row) => zip(keys, row))
  // A session names its latest distinct id, not a person: its visitor is that distinct id's (visitor-ids.ts).
  const [details, visitorOf] = await Promise.all([
    detailsOf(ctx, projectId, rows),
    visitorsOfDistinctIds(
      ctx,
      projectId,
      rows.map((r) => r.distinct_id),
      visitor,
    ),
  ])
  return rows.map((row) =>
    fromPosthogSession(row, projectId, details.get(String(row.session_id)), visitorOf(row.distinct_id)),
  )
}

async function listSessions(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const f = query.filters
  const projectId = projectIdOf(ctx, f.property_id)
  const extra = extraColumns(ctx.fields.rawNames)
  const sort = (query.sort ?? 'start_at') as keyof typeof SESSION_SORTS
  // Without start_gte the list covers the default window (windows.ts): never a scan of all time.
  const range = boundedRange(
    f.start_gte instanceof Date ? f.start_gte : undefined,
    f.end_lt instanceof Date ? f.end_lt : undefined,
  )
  const visitor =
    typeof f.visitor_id === 'string' ? await visitorFilterOf(ctx, projectId, f.visitor_id) : undefined
  const hogql = sessionsListQuery({
    extraColumns: extra,
    filter: {
      visitor,
      source: typeof f.source === 'string' ? f.source : undefined,
      medium: typeof f.medium === 'string' ? f.medium : undefined,
      start: range.start,
      end: range.end,
      search: query.query,
    },
    sort,
    desc: (query.order ?? 'desc') === 'desc',
    limit: query.limit,
    offset: query.offset,
  })
  return readSessions(ctx, projectId, hogql, query.limit, extra, visitor)
}

async function getSession(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const projectId = projectIdOf(ctx)
  const extra = extraColumns(ctx.fields.rawNames)
  const [session] = await readSessions(
    ctx,
    projectId,
    sessionQuery(id, extra, sessionLookupRange(id)),
    1,
    extra,
  )
  if (!session) throw notFoundAtPosthog()
  return session
}

export const sessionHandlers: ObjectHandlers = {
  rawOwned: { ...HOGQL_OWNED, ...PERSON_LOOKUP_OWNED },
  list: listSessions,
  checkList: checkPropertyFilter,
  get: getSession,
  listParams: ['sort', 'order', 'query'],
  filters: ['property_id', 'visitor_id', 'medium', 'source', 'start_gte', 'end_lt'],
  sortFields: Object.keys(SESSION_SORTS),
  slowFields: DETAIL_FIELDS,
}

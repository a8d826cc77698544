import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { rawOf } from '../analytics-values.js'
import { rawThenOwn } from '../raw-lists.js'
import { refuseCutStrings } from '../string-limits.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { mixpanelHosts } from './hosts.js'
import { MIXPANEL_PROFILE_STRINGS } from './limits.js'
import { fromMixpanelProfile, toMixpanelProfileSet } from './mappers.js'
import { untilShown } from './profile-settle.js'
import type { MixpanelEngagePage, MixpanelProfile } from './provider-types.js'

/**
 * One `/api/query/engage` call: the caller's raw parameters, then ours. A unified value left out (no `query`:
 * no `where`) must not erase a raw one of that name, or Mixpanel answers every profile.
 */
async function engage(ctx: HandlerContext, form: Record<string, string | number | undefined>) {
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(rawThenOwn(ctx.rawParams, form))) body.set(k, String(v))
  return ctx.client.json<MixpanelEngagePage>({
    method: 'POST',
    path: '/api/query/engage',
    baseUrl: mixpanelHosts(ctx.credentials).query,
    query: { project_id: ctx.credentials.project_id },
    body: body.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    idempotent: true,
  })
}

/**
 * Engage pages are fixed-size (`page_size`, 1000 at Mixpanel) and pages after the first need the
 * `session_id` the first one returned. The session id and page size are remembered per query, so any
 * later page costs one call instead of a walk from page 0.
 */
/**
 * The profile properties `query` looks in: the email and every reserved name property ("$name, $first_name,
 * $last_name": docs.mixpanel.com/docs/data-structure/property-reference/reserved-properties), since a
 * visitor's `name` is made of the first and last names when `$name` is not set.
 */
const QUERY_PROPERTIES = ['$email', '$name', '$first_name', '$last_name'] as const

/**
 * `query` as a `where`: in any of `QUERY_PROPERTIES`, or in the name shown from the first and last names
 * ("$first_name $last_name"), so a query for that whole name, or across its space, finds it too. `+` of two
 * strings concatenates them, and of a missing property is undefined, which `in` does not match
 * (mixpanel/docs@12e8c38:reference/segmentation-expressions.mdx, "Binary Operations").
 */
function queryWhere(query: string): string {
  const needle = JSON.stringify(query)
  return [
    ...QUERY_PROPERTIES.map((p) => `${needle} in properties["${p}"]`),
    `${needle} in (properties["$first_name"] + " " + properties["$last_name"])`,
  ].join(' or ')
}

async function listVisitors(ctx: HandlerContext, q: ListQuery, retried = false): Promise<UnifiedRecord[]> {
  const projectId = ctx.credentials.project_id as string
  const property = q.filters.property_id
  if (typeof property === 'string' && property !== projectId) return []
  // `query` is sent as engage's one `where`: a raw one beside it would be replaced without a word.
  if (q.query && ctx.rawParams.where !== undefined)
    throw badRequest('raw: where and query both filter Mixpanel profiles with `where`; send one or the other')
  const where = q.query ? queryWhere(q.query) : undefined
  // A session belongs to one query: the raw parameters are part of it.
  const scope = `mixpanel:${ctx.connectionId}:engage:${where ?? ''}:${new URLSearchParams(ctx.rawParams)}`
  let session = await ctx.cursors.get(scope, 0)
  const pages = new Map<number, MixpanelEngagePage>()
  if (!session) {
    const first = await engage(ctx, { where, page: 0 })
    pages.set(0, first)
    if (first.session_id) session = `${first.session_id}|${first.page_size}`
    if (session) ctx.cursors.set(scope, 0, session)
  }
  const [sessionId, sizeText] = (session ?? '|1000').split('|')
  const pageSize = Number(sizeText) || 1000
  const out: UnifiedRecord[] = []
  const last = Math.floor((q.offset + q.limit - 1) / pageSize)
  for (let p = Math.floor(q.offset / pageSize); p <= last; p++) {
    let page = pages.get(p)
    if (!page) {
      try {
        page = await engage(ctx, { where, page: p, session_id: sessionId })
      } catch (err) {
        // A remembered session can expire at Mixpanel: forget it and start again from page 0.
        if (err instanceof ProviderError && err.status === 400 && !retried && !pages.has(0)) {
          ctx.cursors.set(scope, 0, '')
          return listVisitors(ctx, q, true)
        }
        throw err
      }
    }
    const from = p * pageSize
    for (const [i, profile] of page.results.entries()) {
      const position = from + i
      if (position >= q.offset && position < q.offset + q.limit)
        out.push(fromMixpanelProfile(profile, projectId))
    }
    if (page.results.length < pageSize) break
  }
  return out
}

/** The profile of one distinct id as `/api/query/engage` shows it now, if any. */
async function profileOf(ctx: HandlerContext, id: string): Promise<MixpanelProfile | undefined> {
  return (await engage(ctx, { distinct_id: id })).results[0]
}

async function getVisitor(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const profile = await profileOf(ctx, id)
  if (!profile) throw notFound(`Mixpanel visitor ${id} not found`)
  return fromMixpanelProfile(profile, ctx.credentials.project_id as string)
}

/**
 * Profile writes go to the ingestion `/engage` with the project token; `verbose=1` reports failures.
 * `ip=0`: otherwise Mixpanel geolocates the request's address, Unigate's server, and overwrites the
 * profile's `$city`, `$region` and `$country_code` with it on every write.
 */
async function sendProfileUpdate(ctx: HandlerContext, update: Record<string, unknown>): Promise<void> {
  const answer = await ctx.client.json<{ status?: number; error?: string | null }>({
    method: 'POST',
    path: '/engage',
    baseUrl: mixpanelHosts(ctx.credentials).ingest,
    // Authenticated by the project token in the body (reference/providers.md, Mixpanel ingestion): the
    // service account stays off the ingestion host.
    authenticate: false,
    query: { verbose: 1, ip: 0 },
    body: [{ $token: ctx.credentials.project_token, ...update }],
  })
  if (answer?.status !== 1)
    throw new ProviderError(
      400,
      answer?.error ? ctx.client.messageOf({ error: answer.error }) : 'Mixpanel refused the profile update',
    )
}

/**
 * The query parameters of the ingestion `/engage` (mixpanel/docs@00bc41d:openapi/src/common/ingestion-api.yaml,
 * OptionalRequestParameter `verbose`, `callback`, `ip`; openapi/src/ingestion.openapi.yaml `/engage#profile-set`),
 * all Unigate's, with why.
 */
const ENGAGE_WRITE_OWNED: Readonly<Record<string, string>> = {
  verbose: 'Unigate reads the answer with verbose=1',
  callback: 'Unigate reads the answer as JSON',
  ip: "Unigate sends ip=0 so Mixpanel does not locate the profile at Unigate's server; give city or country_code",
}

/**
 * A profile write's raw parameters would go to the `/engage` write itself, which takes no query parameter
 * but Unigate's own (ENGAGE_WRITE_OWNED) and ignores others: each is a 400 naming it, before any call,
 * rather than sent nowhere (or, as before, to the read-back, where a raw `where` hid the profile written).
 * Profile properties go in the body's `raw` object.
 */
function refuseWriteRaw(ctx: HandlerContext): void {
  for (const name of Object.keys(ctx.rawParams)) {
    const why = Object.hasOwn(ENGAGE_WRITE_OWNED, name) ? ENGAGE_WRITE_OWNED[name] : undefined
    if (why !== undefined)
      throw badRequest(`raw: '${name}' is set by Unigate for Mixpanel's profile write; ${why}`)
    throw badRequest(
      `raw: Mixpanel's profile write (/engage) takes no '${name}' (its query takes only verbose, callback and ip, ` +
        "which Unigate sets); give profile properties in the body's raw object",
    )
  }
}

/**
 * Mixpanel accepts a profile update at once and applies it asynchronously (within a minute), so a read
 * right after the write may not see it. A unified write answers only once Mixpanel shows it (every value
 * set), so the caller's next get, update or remove finds what was written; a write not shown in time is a
 * 504 saying it was accepted (profile-settle.ts). The answer is what was sent: the fields given, the id,
 * and the `$set` as raw.
 */
async function setProfile(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord> {
  refuseWriteRaw(ctx)
  refuseCutStrings(body, MIXPANEL_PROFILE_STRINGS)
  const set = toMixpanelProfileSet(body)
  if (Object.keys(set).length === 0) throw badRequest('nothing to set on the Mixpanel profile')
  await sendProfileUpdate(ctx, { $distinct_id: id, $set: set })
  await untilShown(async () => {
    const shown = (await profileOf(ctx, id))?.$properties ?? {}
    return Object.entries(set).every(([k, v]) => isDeepStrictEqual(shown[k], v))
  }, `the profile update of visitor ${id}`)
  const { raw: _raw, ...fields } = body
  return {
    ...fields,
    id,
    property_id: ctx.credentials.project_id,
    raw: { $distinct_id: id, $set: set },
  }
}

export const visitorHandlers: ObjectHandlers = {
  list: (ctx, q) => listVisitors(ctx, q),
  get: getVisitor,
  /** Profiles are keyed by the caller's distinct id (`raw.$distinct_id`), or by one generated here. */
  async create(ctx, body) {
    const raw = rawOf(body)
    const id = typeof raw.$distinct_id === 'string' && raw.$distinct_id ? raw.$distinct_id : randomUUID()
    return setProfile(ctx, id, body)
  },
  update: setProfile,
  patch: setProfile,
  /** Answers once the profile is gone from `/engage`, like a write (see setProfile). */
  async remove(ctx, id) {
    await getVisitor(ctx, id)
    await sendProfileUpdate(ctx, { $distinct_id: id, $delete: null, $ignore_alias: false })
    await untilShown(async () => (await profileOf(ctx, id)) === undefined, `the deletion of visitor ${id}`)
  },
  listParams: ['query'],
  filters: ['property_id'],
  rawOwned: {
    page: 'Unigate pages with limit and offset',
    session_id: 'Unigate pages with limit and offset',
  },
}

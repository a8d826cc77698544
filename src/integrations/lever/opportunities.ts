import pMap from 'p-map'
import { ApiError, badRequest } from '../../errors.js'
import { ATS_APPLICATION_STATUSES, type UnifiedRecord } from '../../models/index.js'
import { statusOfStageName } from '../ats-stages.js'
import { sharedText } from '../shared-text.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { fromLeverOffer, fromLeverOpportunity, type LeverLookups } from './mappers.js'
import { MAX_PAGE, readMergedWindow } from './merged-window.js'
import type { LeverArchiveReason, LeverList, LeverOffer, LeverOpportunity, LeverStage } from './types.js'

/** Opportunities whose offers are read at once, well inside Lever's 10 requests per second. */
const OFFER_CONCURRENCY = 4

/** Pages of a lookup list (stages, archive reasons, one opportunity's offers) read at most; more fails naming it. */
const MAX_LOOKUP_PAGES = 20

const OFFER_FIELDS = ['offers', 'raw.offers'] as const

const opportunityPath = (id: string) => `/opportunities/${encodeURIComponent(id)}`

/** Query string with repeated parameters (`stage_id=a&stage_id=b`), which Lever takes for its list filters. */
function withRepeated(path: string, params: readonly (readonly [string, string])[]): string {
  const qs = new URLSearchParams(params.map(([k, v]) => [k, v])).toString()
  return qs ? `${path}?${qs}` : path
}

/**
 * Unigate's parameters with the caller's raw ones added (`raw` is "added to the provider request", spec 4.1).
 * `expand` is repeatable ("expand=applications&expand=stage", Lever's customizing-the-response docs): a raw
 * one joins `expand=applications`, which every unified field of an application reads, instead of replacing
 * it (the request's query is set over the path's, so a raw `expand=stage` dropped the applications and every
 * job_id came back empty). A raw filter a unified filter also sets is left to the unified one.
 */
function withRawParams(
  ctx: HandlerContext,
  params: readonly (readonly [string, string])[],
): (readonly [string, string])[] {
  const out = [...params]
  const own = new Set(params.map(([k]) => k))
  // The expansions already asked, in a set: a scan of `out` per raw name was quadratic in a long raw `expand`.
  const expanded = new Set(params.filter(([k]) => k === 'expand').map(([, v]) => v))
  for (const [k, v] of Object.entries(ctx.rawParams)) {
    if (k === 'expand') {
      for (const name of v.split(',').map((n) => n.trim())) {
        if (!name || expanded.has(name)) continue
        expanded.add(name)
        out.push([k, name])
      }
    } else if (!own.has(k)) out.push([k, v])
  }
  return out
}

/** Every row of a small Lever list, following `next` tokens; more than MAX_LOOKUP_PAGES pages is a 502 naming it. */
async function readAll<T>(ctx: HandlerContext, path: string): Promise<T[]> {
  const rows: T[] = []
  let offset: string | undefined
  for (let pages = 0; ; pages++) {
    if (pages >= MAX_LOOKUP_PAGES) {
      throw new ApiError(
        502,
        `Lever lists more than ${MAX_LOOKUP_PAGES * MAX_PAGE} rows at ${path}; Unigate reads at most that many`,
      )
    }
    const page = await ctx.client.json<LeverList<T>>({ path, query: { limit: MAX_PAGE, offset } })
    rows.push(...page.data)
    if (!page.hasNext || !page.next) return rows
    offset = page.next
  }
}

/** The account's stages and archive reasons, read once per request and only when needed. */
function lookupsOf(ctx: HandlerContext) {
  let stages: Promise<Map<string, LeverStage>> | undefined
  let reasons: Promise<Map<string, LeverArchiveReason>> | undefined
  return {
    stages: () => {
      // A stage's and a reason's text are copied onto every opportunity at it: held to SHARED_TEXT_LENGTH.
      stages ??= readAll<LeverStage>(ctx, '/stages').then(
        (rows) =>
          new Map(rows.map((r) => [r.id, { ...r, text: sharedText(r.text, 'Lever', "stage's text") }])),
      )
      return stages
    },
    reasons: () => {
      reasons ??= readAll<LeverArchiveReason>(ctx, '/archive_reasons').then(
        (rows) =>
          new Map(
            rows.map((r) => [r.id, { ...r, text: sharedText(r.text, 'Lever', "archive reason's text") }]),
          ),
      )
      return reasons
    },
    /** What mapping these opportunities needs: stages always, archive reasons only when one is archived. */
    async for(opportunities: readonly LeverOpportunity[]): Promise<LeverLookups> {
      const [s, r] = await Promise.all([
        this.stages(),
        opportunities.some((o) => o.archived)
          ? this.reasons()
          : Promise.resolve(new Map<string, LeverArchiveReason>()),
      ])
      return { stages: s, reasons: r }
    },
  }
}

type Lookups = ReturnType<typeof lookupsOf>

/** The unified status a `status` filter names, or a 400 naming the statuses. */
function applicationStatus(status: string): string {
  const wanted = status.toUpperCase()
  if (!(ATS_APPLICATION_STATUSES as readonly string[]).includes(wanted)) {
    throw badRequest(
      `status: '${status}' is not an application status; use ${ATS_APPLICATION_STATUSES.join(', ')}`,
    )
  }
  return wanted
}

/**
 * The unified `status` filter as Lever filters: HIRED and REJECTED are archived opportunities with an archive
 * reason of that type (`archive_reason_id`); another status is the active opportunities in the stages whose
 * names mean it (`stage_id`, `archived=false`). Undefined when no reason or stage means it: nothing matches.
 */
async function statusParams(lookups: Lookups, status: string): Promise<[string, string][] | undefined> {
  const wanted = applicationStatus(status)
  if (wanted === 'HIRED' || wanted === 'REJECTED') {
    const type = wanted === 'HIRED' ? 'hired' : 'non-hired'
    const ids = [...(await lookups.reasons()).values()].filter((r) => r.type === type).map((r) => r.id)
    return ids.length > 0 ? ids.map((id) => ['archive_reason_id', id]) : undefined
  }
  const ids = [...(await lookups.stages()).values()]
    .filter((s) => statusOfStageName(s.text) === wanted)
    .map((s) => s.id)
  return ids.length > 0
    ? [...ids.map((id): [string, string] => ['stage_id', id]), ['archived', 'false']]
    : undefined
}

async function offersOf(ctx: HandlerContext, id: string): Promise<LeverOffer[]> {
  return readAll<LeverOffer>(ctx, `${opportunityPath(id)}/offers`)
}

/** Adds the slow fields the plan asks for (spec section 7): `offers`, and/or `raw.offers` (Lever's own). */
async function withOffers(ctx: HandlerContext, records: UnifiedRecord[]): Promise<UnifiedRecord[]> {
  const unified = ctx.fields.slow.has('offers')
  const raw = ctx.fields.slow.has('raw.offers')
  if (!unified && !raw) return records
  return pMap(
    records,
    async (record) => {
      const offers = await offersOf(ctx, record.id as string)
      return {
        ...record,
        ...(unified ? { offers: offers.map(fromLeverOffer) } : {}),
        ...(raw ? { raw: { ...record.raw, offers } } : {}),
      }
    },
    { concurrency: OFFER_CONCURRENCY },
  )
}

async function listOpportunities(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const lookups = lookupsOf(ctx)
  // Lever leaves confidential opportunities out of a list unless it is asked for `all`
  // (https://hire.lever.co/developer/documentation#confidential-data); a key without confidential access
  // still sees only the others, which the connection's description says.
  const params: [string, string][] = [
    ['expand', 'applications'],
    ['confidentiality', 'all'],
  ]
  if (q.filters.candidate_id !== undefined) params.push(['contact_id', q.filters.candidate_id as string])
  if (q.updated_gte) params.push(['updated_at_start', String(q.updated_gte.getTime())])
  if (q.filters.status !== undefined) {
    const status = await statusParams(lookups, q.filters.status as string)
    if (!status) return []
    params.push(...status)
  }
  // Lever's `posting_id` is "Opportunities that are applied to the specified posting", and a separate
  // `archived_posting_id` is "opportunities for candidates that applied to the specified posting and then the
  // application was archived" (tonyxiao/openSDKs@298c7b7:sdks/sdk-lever/src/lever.oas.ts, Lever's parameter
  // texts). Whether the first leaves out the archived (hired, rejected) ones is not stated, and public Lever
  // clients that want a posting's every candidate read both lists and add them up. So a job's applications
  // are both lists merged in Lever's order, each opportunity once, whichever way Lever answers.
  const job = q.filters.job_id as string | undefined
  const paths =
    job === undefined
      ? [withRepeated('/opportunities', withRawParams(ctx, params))]
      : [
          withRepeated('/opportunities', withRawParams(ctx, [...params, ['posting_id', job]])),
          withRepeated('/opportunities', withRawParams(ctx, [...params, ['archived_posting_id', job]])),
        ]
  const opportunities = await readMergedWindow(ctx, paths, q)
  const known = await lookups.for(opportunities)
  return withOffers(
    ctx,
    opportunities.map((o) => fromLeverOpportunity(o, known)),
  )
}

export const opportunityHandlers: ObjectHandlers = {
  listParams: ['updated_gte'],
  rawOwned: {
    offset: 'Unigate pages with limit and offset',
    limit: 'Unigate pages with limit and offset',
    confidentiality: 'Unigate asks for every opportunity the key may see (all)',
  },
  filters: ['candidate_id', 'job_id', 'status'],
  slowFields: [...OFFER_FIELDS],
  listIsComplete: true,
  list: listOpportunities,
  // Which stages or archive reasons a status stands for needs Lever's lists; that it is a status does not.
  checkList: (q) => {
    if (q.filters.status !== undefined) applicationStatus(q.filters.status as string)
  },

  async get(ctx, id) {
    const { data } = await ctx.client.json<{ data: LeverOpportunity }>({
      path: withRepeated(opportunityPath(id), withRawParams(ctx, [['expand', 'applications']])),
    })
    const known = await lookupsOf(ctx).for([data])
    const [record] = await withOffers(ctx, [fromLeverOpportunity(data, known)])
    return record as UnifiedRecord
  },
}

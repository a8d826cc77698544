import { ApiError, badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { linkOf } from '../link-header.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { fromGreenhouseApplication, fromGreenhouseOffer, STATUS_FILTERS } from './mappers.js'
import { MAX_PER_PAGE, type PagePlan, planPages } from './pages.js'
import type { GreenhouseApplication, GreenhouseCandidate, GreenhouseOffer } from './types.js'

/** The slow fields: an application's offers are another call per application (`/applications/{id}/offers`). */
const OFFER_FIELDS = ['offers', 'raw.offers'] as const

/** Offers of one application read at most this many pages of 500; more fails naming the cap, never cut short. */
const MAX_OFFER_PAGES = 20

/** Applications whose offers (or full rows) are read at once: a page of 100 must not spend Harvest's 50 calls per 10 s in a burst. */
const OFFER_CONCURRENCY = 4

const numericId = (name: string, value: string) => {
  if (!/^\d+$/.test(value))
    throw badRequest(`${name}: '${value}' is not a Greenhouse id; Greenhouse ids are whole numbers`)
  return value
}

const applicationPath = (id: string) => `/applications/${encodeURIComponent(id)}`

/**
 * Reads a Harvest list from the planned page on, following the `Link: rel="next"` URLs as Greenhouse asks
 * ("use the Link headers and not page manually"), until `want` rows past `plan.skip` are in or no page follows.
 * A next link is followed only on the connection's own origin, so the key never goes anywhere else.
 */
async function readPages<T>(
  ctx: HandlerContext,
  path: string,
  query: Readonly<Record<string, string | number | undefined>>,
  plan: PagePlan,
  want: number,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const origin = new URL(ctx.client.baseUrl).origin
  const rows: T[] = []
  let request: { path: string; query?: Readonly<Record<string, string | number | undefined>> } = {
    path,
    query: { ...ctx.rawParams, ...query, per_page: plan.perPage, page: plan.page, skip_count: 'true' },
  }
  for (let pages = 1; ; pages++) {
    const res = await ctx.client.send(request)
    if (!Array.isArray(res.body)) throw new TypeError('a Harvest list answered something other than an array')
    rows.push(...(res.body as T[]))
    if (rows.length >= plan.skip + want) break
    const next = linkOf(res.headers.link, 'next')
    if (!next) break
    if (new URL(next, origin).origin !== origin) {
      throw new ApiError(
        502,
        `Greenhouse answered a next page on another address (${new URL(next, origin).origin}); not followed`,
      )
    }
    if (pages >= maxPages) {
      throw new ApiError(
        502,
        `Greenhouse lists more than ${maxPages * MAX_PER_PAGE} rows at ${path}; Unigate reads at most that many`,
      )
    }
    request = { path: next }
  }
  return rows.slice(plan.skip, plan.skip + want)
}

async function offersOf(ctx: HandlerContext, applicationId: string): Promise<GreenhouseOffer[]> {
  return readPages<GreenhouseOffer>(
    ctx,
    `${applicationPath(applicationId)}/offers`,
    {},
    { perPage: MAX_PER_PAGE, page: 1, skip: 0 },
    Number.POSITIVE_INFINITY,
    MAX_OFFER_PAGES,
  )
}

/** Adds the slow fields the plan asks for (spec section 7): `offers`, and/or `raw.offers` (Greenhouse's own). */
async function withOffers(ctx: HandlerContext, records: UnifiedRecord[]): Promise<UnifiedRecord[]> {
  const unified = ctx.fields.slow.has('offers')
  const raw = ctx.fields.slow.has('raw.offers')
  if (!unified && !raw) return records
  const out: UnifiedRecord[] = new Array(records.length)
  let next = 0
  const worker = async () => {
    while (next < records.length) {
      const i = next++
      const record = records[i] as UnifiedRecord
      const offers = await offersOf(ctx, record.id as string)
      out[i] = {
        ...record,
        ...(unified ? { offers: offers.map(fromGreenhouseOffer) } : {}),
        ...(raw ? { raw: { ...record.raw, offers } } : {}),
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(OFFER_CONCURRENCY, records.length) }, worker))
  return out
}

/** Greenhouse's `status` for the unified one asked, or a 400 naming the values it can filter by. */
function statusFilter(value: string): string {
  const status = STATUS_FILTERS[value.toUpperCase()]
  if (!status) {
    throw badRequest(
      `status: Greenhouse can list applications by ${Object.keys(STATUS_FILTERS).join(' or ')} only; ` +
        `'${value}' is a stage of an active application there (read original_substatus)`,
    )
  }
  return status
}

/**
 * The applications of one candidate: Harvest embeds them in the candidate, so the other filters apply here.
 * The embedded rows lack `keyed_custom_fields` (harvest.html#the-candidate-object), so the window's rows are
 * then read in full, as the list has them, or their metadata would be silently empty.
 */
async function listForCandidate(ctx: HandlerContext, q: ListQuery, candidateId: string) {
  const job = q.filters.job_id as string | undefined
  const status = q.filters.status === undefined ? undefined : statusFilter(q.filters.status as string)
  let candidate: GreenhouseCandidate
  try {
    candidate = await ctx.client.json<GreenhouseCandidate>({
      path: `/candidates/${encodeURIComponent(candidateId)}`,
      query: { ...ctx.rawParams },
    })
  } catch (err) {
    // A list filtered by a candidate that does not exist is empty, as Greenhouse's own filters answer.
    if (err instanceof ProviderError && err.status === 404) return []
    throw err
  }
  const since = q.updated_gte?.getTime()
  const apps = [...(candidate.applications ?? [])]
    .filter(
      (a) =>
        (job === undefined || (a.jobs ?? []).some((j) => String(j.id) === job)) &&
        (status === undefined || a.status === status) &&
        (since === undefined || Date.parse(a.last_activity_at ?? '') >= since),
    )
    .sort((a, b) => a.id - b.id)
  return inFull(ctx, apps.slice(q.offset, q.offset + q.limit))
}

/** Each application as Retrieve Application answers it; one deleted meanwhile is left out. */
async function inFull(
  ctx: HandlerContext,
  apps: readonly GreenhouseApplication[],
): Promise<GreenhouseApplication[]> {
  const out: (GreenhouseApplication | undefined)[] = new Array(apps.length)
  let next = 0
  const worker = async () => {
    while (next < apps.length) {
      const i = next++
      try {
        out[i] = await ctx.client.json<GreenhouseApplication>({
          path: applicationPath(String(apps[i]?.id)),
          query: { ...ctx.rawParams },
        })
      } catch (err) {
        if (!(err instanceof ProviderError && err.status === 404)) throw err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(OFFER_CONCURRENCY, apps.length) }, worker))
  return out.filter((a): a is GreenhouseApplication => a !== undefined)
}

async function listApplications(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const job = q.filters.job_id === undefined ? undefined : numericId('job_id', q.filters.job_id as string)
  const candidate =
    q.filters.candidate_id === undefined
      ? undefined
      : numericId('candidate_id', q.filters.candidate_id as string)
  const apps = candidate
    ? await listForCandidate(ctx, q, candidate)
    : await readPages<GreenhouseApplication>(
        ctx,
        '/applications',
        {
          job_id: job,
          status: q.filters.status === undefined ? undefined : statusFilter(q.filters.status as string),
          last_activity_after: q.updated_gte?.toISOString(),
        },
        planPages(q.offset, q.limit),
        q.limit,
      )
  return withOffers(ctx, apps.map(fromGreenhouseApplication))
}

export const applicationHandlers: ObjectHandlers = {
  listParams: ['updated_gte'],
  filters: ['candidate_id', 'job_id', 'status'],
  slowFields: [...OFFER_FIELDS],
  // Without filters the list is every application of the organization.
  listIsComplete: true,
  list: listApplications,

  async get(ctx, id) {
    if (!/^\d+$/.test(id))
      throw notFound(`get ats_application ${id}: Greenhouse application ids are whole numbers`)
    const app = await ctx.client.json<GreenhouseApplication>({
      path: applicationPath(id),
      query: { ...ctx.rawParams },
    })
    const [record] = await withOffers(ctx, [fromGreenhouseApplication(app)])
    return record as UnifiedRecord
  },
}

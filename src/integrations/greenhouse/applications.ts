import { ApiError, badRequest, notFound, ProviderError } from '../../errors.js'
import { ATS_APPLICATION_STATUSES, type UnifiedRecord } from '../../models/index.js'
import { MAX_CURSOR_WALK } from '../cursors.js'
import type { ProviderRequest } from '../http-client.js'
import { rawThenOwn } from '../raw-lists.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { namesFor } from './lookups.js'
import { fromGreenhouseApplication, fromGreenhouseOffer, STATUS_FILTERS } from './mappers.js'
import { MAX_PER_PAGE, page, type Query, readAll } from './pages.js'
import type { GreenhouseApplication, GreenhouseOffer } from './types.js'

/** The slow fields: offers are another resource (`GET /v3/offers`), read for a page of applications at once. */
const OFFER_FIELDS = ['offers', 'raw.offers'] as const
/**
 * Applications whose offers one call asks for (`application_ids`, a parent-resource filter of
 * https://harvestdocs.greenhouse.io/docs/list-endpoints): Greenhouse takes at most 50 ids in an `*_ids`
 * filter (airbytehq/airbyte@0481622:airbyte-integrations/connectors/source-greenhouse, unit tests).
 */
const OFFER_IDS_PER_CALL = 50
/** Offers of one batch read at most this many pages of 500; more fails naming the cap, never cut short. */
const MAX_OFFER_PAGES = 20

const numericId = (name: string, value: string) => {
  if (!/^\d+$/.test(value))
    throw badRequest(`${name}: '${value}' is not a Greenhouse id; Greenhouse ids are whole numbers`)
  return value
}

/** Greenhouse's `status` for the unified one asked, or a 400 naming the values it can filter by. */
function statusFilter(value: string): string {
  // A value outside the model is the 400 it is on every integration (Lever's too), not "a stage here".
  if (!(ATS_APPLICATION_STATUSES as readonly string[]).includes(value.trim().toUpperCase())) {
    throw badRequest(
      `status: '${value}' is not an application status; use ${ATS_APPLICATION_STATUSES.join(', ')}`,
    )
  }
  const status = STATUS_FILTERS[value.trim().toUpperCase()]
  if (!status) {
    throw badRequest(
      `status: Greenhouse can list applications by ${Object.keys(STATUS_FILTERS).join(' or ')} only; ` +
        `'${value}' is a stage of an active application there`,
    )
  }
  return status
}

/**
 * The rows `offset`..`offset+limit` of a Harvest v3 list. v3 pages by cursor only: filters and `per_page`
 * go on the first request, then the `rel="next"` URL is called exactly as given, as its only parameter
 * (https://harvestdocs.greenhouse.io/docs/pagination). A window that starts the list and is smaller than a page
 * is one call of its own size; any other is read in pages of 500 from the remembered cursor nearest below it,
 * remembering the cursor of every page it passes, so windows of 500 read in order read each page once. When
 * Greenhouse says the list ends within the window (no `rel="next"`), `ctx.onListEnd` is told: a list of whole
 * pages ends on a full window, and a reader of the whole list would otherwise read the last page again to
 * find nothing after it.
 */
async function readWindow<T>(
  ctx: HandlerContext,
  path: string,
  filters: Query,
  offset: number,
  limit: number,
): Promise<T[]> {
  // A unified filter the caller left out is undefined here: it must not erase a raw filter of that name (the
  // `raw` parameter is "added to the provider request", spec 4.1), or Greenhouse answers the list unfiltered.
  const first: Query = rawThenOwn(ctx.rawParams, filters)
  // A smaller first page leaves no cursor: the walks go in pages of 500, from cursors of such pages.
  if (offset === 0 && limit < MAX_PER_PAGE) {
    const { rows, next } = await page<T>(ctx, { path, query: { ...first, per_page: limit } })
    if (!next) ctx.onListEnd?.()
    return rows.slice(0, limit)
  }
  const defined = Object.entries(first).filter((e): e is [string, string | number] => e[1] !== undefined)
  const scope = `${ctx.connectionId}|greenhouse|${path}|${new URLSearchParams(defined.map(([k, v]) => [k, String(v)]))}`
  const start = await ctx.cursors.walkStart(scope, Math.floor(offset / MAX_PER_PAGE) * MAX_PER_PAGE)
  const end = offset + limit
  const out: T[] = []
  const firstPage: ProviderRequest = { path, query: { ...first, per_page: MAX_PER_PAGE } }
  let position = start.offset
  let request: ProviderRequest = start.cursor ? { path: start.cursor } : firstPage
  let restarted = false
  for (;;) {
    let got: Awaited<ReturnType<typeof page<T>>>
    try {
      got = await page<T>(ctx, request)
    } catch (err) {
      if (!isRefusedCursor(request, err)) throw err
      // Greenhouse's cursors expire (see isRefusedCursor). Unigate keeps one for an hour, so the one it kept
      // for this position may be refused: the listing starts again from its first request, which only reads
      // (the walk to the offset is bounded as any walk is). A cursor of the new walk refused too is no
      // expiry: then the caller is told to read the list again.
      if (restarted) throw cursorRefused(err as ProviderError)
      if (offset > MAX_CURSOR_WALK) throw expiredFarAhead(offset, err as ProviderError)
      restarted = true
      position = 0
      out.length = 0
      request = firstPage
      continue
    }
    const { rows, next } = got
    rows.forEach((row, i) => {
      if (position + i >= offset && position + i < end) out.push(row)
    })
    position += rows.length
    if (!next || rows.length === 0) {
      // No `rel="next"`: this page is the list's last ("When the Link header is missing or empty, you're on
      // the last page", https://harvestdocs.greenhouse.io/docs/pagination). Said only when it ends within the
      // window: rows past a window's end are still the next window's.
      if (position <= end) ctx.onListEnd?.()
      break
    }
    ctx.cursors.set(scope, position, next)
    if (position >= end) break
    request = { path: next }
  }
  return out
}

/**
 * A follow-up request is the cursor URL alone. Greenhouse answers 422 for a cursor it no longer takes: "a
 * cursor combined with other query parameters, an expired cursor, or per_page outside 1-500"
 * (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml,
 * error_handler); Unigate never adds parameters to a cursor URL, so a 422 there is the cursor itself.
 */
function isRefusedCursor(request: ProviderRequest, err: unknown): boolean {
  return request.query === undefined && err instanceof ProviderError && err.status === 422
}

function cursorRefused(err: ProviderError): ApiError {
  return new ApiError(
    502,
    `Greenhouse refused the next-page cursor it had just given (Greenhouse answered 422: ${err.providerMessage}); ` +
      'read the list again from offset 0',
    {},
    { provider_status: 422 },
  )
}

function expiredFarAhead(offset: number, err: ProviderError): ApiError {
  return badRequest(
    `offset: Greenhouse no longer takes the cursor Unigate kept for this position (its cursors expire; Greenhouse ` +
      `answered 422: ${err.providerMessage}), and starting the listing again would skip more than ` +
      `${MAX_CURSOR_WALK} records to reach offset ${offset}; read the list again in order from offset 0`,
  )
}

/** Adds the slow fields the plan asks for (spec section 7): `offers`, and/or `raw.offers` (Greenhouse's own). */
async function withOffers(ctx: HandlerContext, records: UnifiedRecord[]): Promise<UnifiedRecord[]> {
  const unified = ctx.fields.slow.has('offers')
  const raw = ctx.fields.slow.has('raw.offers')
  if (!unified && !raw) return records
  const byApplication = new Map<string, GreenhouseOffer[]>()
  // Batches one after another: a page of applications stays a handful of calls, never a burst.
  for (let i = 0; i < records.length; i += OFFER_IDS_PER_CALL) {
    const ids = records.slice(i, i + OFFER_IDS_PER_CALL).map((r) => r.id as string)
    const offers = await readAll<GreenhouseOffer>(
      ctx,
      '/offers',
      { application_ids: ids.join(',') },
      MAX_OFFER_PAGES,
    )
    // Each offer is pushed onto its application's list: a list copied per offer cost offers squared, and a
    // connection's api_url answering 60,000 offers of one application (1.3 MB) held the event loop for 174 s
    // (a security review, reproduced).
    for (const offer of offers) {
      const key = String(offer.application_id)
      const list = byApplication.get(key)
      if (list) list.push(offer)
      else byApplication.set(key, [offer])
    }
  }
  return records.map((record) => {
    const offers = byApplication.get(record.id as string) ?? []
    return {
      ...record,
      ...(unified ? { offers: offers.map(fromGreenhouseOffer) } : {}),
      ...(raw ? { raw: { ...record.raw, offers } } : {}),
    }
  })
}

/**
 * The unified filters as v3 list filters (https://harvestdocs.greenhouse.io/docs/list-endpoints): parent
 * resources by plural id lists (`candidate_ids`, `job_ids`), `status`, and `updated_at` with an operator
 * (`gte|<ISO-8601>`).
 */
function filtersOf(q: ListQuery): Query {
  return {
    job_ids: q.filters.job_id === undefined ? undefined : numericId('job_id', q.filters.job_id as string),
    candidate_ids:
      q.filters.candidate_id === undefined
        ? undefined
        : numericId('candidate_id', q.filters.candidate_id as string),
    status: q.filters.status === undefined ? undefined : statusFilter(q.filters.status as string),
    updated_at: q.updated_gte ? `gte|${q.updated_gte.toISOString()}` : undefined,
  }
}

async function listApplications(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const apps = await readWindow<GreenhouseApplication>(ctx, '/applications', filtersOf(q), q.offset, q.limit)
  const names = await namesFor(ctx, apps)
  return withOffers(
    ctx,
    apps.map((app) => fromGreenhouseApplication(app, names)),
  )
}

export const applicationHandlers: ObjectHandlers = {
  listParams: ['updated_gte'],
  rawOwned: {
    per_page: 'Unigate pages with limit and offset',
    cursor: 'Unigate pages with limit and offset',
  },
  filters: ['candidate_id', 'job_id', 'status'],
  slowFields: [...OFFER_FIELDS],
  // Without filters the list is every application of the organization.
  listIsComplete: true,
  // Cursors are kept every 500 rows (readWindow): a reader of the whole list asks for pages of 500.
  pageSize: MAX_PER_PAGE,
  list: listApplications,
  // The filters' own rules (ids that are numbers, a status Greenhouse can list by), before any list and when a
  // webhook is made.
  checkList: (q) => void filtersOf(q),
  async get(ctx, id) {
    if (!/^\d+$/.test(id))
      throw notFound(`get ats_application ${id}: Greenhouse application ids are whole numbers`)
    // One application is the list filtered by `ids` (https://harvestdocs.greenhouse.io/docs/list-endpoints).
    const { rows } = await page<GreenhouseApplication>(ctx, {
      path: '/applications',
      query: { ...ctx.rawParams, ids: id },
    })
    const app = rows.find((a) => String(a.id) === id)
    if (!app) throw notFound(`get ats_application ${id}: Greenhouse has no application ${id}`)
    const [record] = await withOffers(ctx, [fromGreenhouseApplication(app, await namesFor(ctx, [app]))])
    return record as UnifiedRecord
  },
}

import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { requestedDays, resolveDays } from '../google/report-days.js'
import { reportParamsOf } from '../report-params.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { addDays, dayIn } from '../zones.js'
import { ga4DataBase } from './hosts.js'
import { propertyIdOf, toGa4PropertyName } from './mappers.js'
import type { Ga4RunReportResponse } from './provider-types.js'
import {
  fromGa4ReportRows,
  GA4_MAX_METRICS,
  ga4OrderBys,
  toGa4Dimension,
  toGa4Metrics,
} from './report-mappers.js'

/** `raw=keepEmptyRows%3Dtrue`: the raw parameters join the runReport body; booleans and numbers keep their type. */
function rawBodyParams(raw: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(raw)) out[k] = v === 'true' ? true : v === 'false' ? false : v
  return out
}

/**
 * A runReport over the requested days. Days are the property's calendar days: without dates the range
 * is GA4's own `27daysAgo`..`today`, resolved afterwards with the time zone GA4 reports in `metadata`.
 * `limit`/`offset` are GA4's own row paging, so page N is one call.
 */
async function listReports(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const propertyFilter = query.filters.property_id
  if (typeof propertyFilter !== 'string') {
    throw badRequest('property_id is required: GA4 reports are run per property')
  }
  const name = toGa4PropertyName(propertyFilter)
  const params = reportParamsOf(query)
  const metrics = toGa4Metrics(params.types)
  if (metrics.length > GA4_MAX_METRICS) {
    throw badRequest(`type: GA4 reports at most ${GA4_MAX_METRICS} metrics per request; ask for fewer`)
  }
  const dimension = toGa4Dimension(params.dimension)
  const days = requestedDays(query, 'Google Analytics 4', "the property's time zone")
  const dateRange = {
    startDate: days.startDate ?? (days.endDate ? addDays(days.endDate, -27) : '27daysAgo'),
    endDate: days.endDate ?? 'today',
  }
  const wantsQuota = ctx.fields.raw || ctx.fields.rawNames.includes('propertyQuota')
  const firstMetric = metrics[0]?.name ?? 'activeUsers'
  const res = await ctx.client.json<Ga4RunReportResponse>({
    method: 'POST',
    baseUrl: ga4DataBase(ctx.credentials),
    path: `/v1beta/${name}:runReport`,
    body: {
      // The caller's first: Unigate's own names are refused (rawOwned), so nothing here replaces one.
      ...rawBodyParams(ctx.rawParams),
      dateRanges: [dateRange],
      ...(dimension ? { dimensions: [{ name: dimension }] } : {}),
      metrics: metrics.map((m) => ({ name: m.name })),
      limit: String(query.limit),
      offset: String(query.offset),
      ...(dimension ? { orderBys: ga4OrderBys(dimension, firstMetric) } : {}),
      ...(wantsQuota ? { returnPropertyQuota: true } : {}),
    },
    // A report is a read: retrying it is safe.
    idempotent: true,
  })
  const timeZone = res.metadata?.timeZone ?? 'UTC'
  const resolved = resolveDays(days, dayIn(Date.now(), timeZone))
  return fromGa4ReportRows(res, {
    propertyId: propertyIdOf(name),
    ...resolved,
    timeZone,
    ...(params.dimension ? { dimension: params.dimension } : {}),
    types: metrics.map((m) => m.type),
  })
}

export const ga4Reports: ObjectHandlers = {
  list: listReports,
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // What Unigate sets in the runReport body and reads the rows by: a raw one (a string) would replace it.
  rawOwned: {
    dateRanges: 'use start_gte and end_lt',
    dimensions: 'use dimension',
    metrics: 'use type',
    limit: 'Unigate pages with limit and offset',
    offset: 'Unigate pages with limit and offset',
    orderBys: 'Unigate orders the rows it pages with limit and offset',
  },
}

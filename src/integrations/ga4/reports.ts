import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { requestedDays, resolveDays } from '../google/report-days.js'
import { rawJson } from '../raw-lists.js'
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

/**
 * The RunReportRequest body fields a raw parameter may set, by their JSON type
 * (googleapis/googleapis@3597f7db:google/analytics/data/v1beta/analytics_data_api.proto, RunReportRequest):
 * FilterExpression and CohortSpec messages are objects, `comparisons` a list of Comparison objects,
 * `metricAggregations` a list of enum names, the two flags booleans, `currencyCode` text. The others are
 * Unigate's (`rawOwned`, below); GA4 refuses any other name ("Cannot find field").
 */
const RAW_REPORT_FIELDS: Readonly<Record<string, 'object' | 'objects' | 'names' | 'flag' | 'text'>> = {
  dimensionFilter: 'object',
  metricFilter: 'object',
  cohortSpec: 'object',
  comparisons: 'objects',
  metricAggregations: 'names',
  keepEmptyRows: 'flag',
  returnPropertyQuota: 'flag',
  currencyCode: 'text',
}

/** What a raw value of each kind must be, for the 400 naming it. */
const RAW_REPORT_KIND_HINT = {
  object: 'give a JSON object, such as {"filter":{"fieldName":"country","stringFilter":{"value":"France"}}}',
  objects: 'give a JSON array of objects',
  names: 'give a JSON array of names, such as ["TOTAL"], or names joined by commas (TOTAL,MAXIMUM)',
  flag: 'give true or false',
  text: '',
} as const

/** One raw value as the runReport body field takes it (RAW_REPORT_FIELDS), or undefined when it is not that. */
function rawReportValue(name: string, kind: keyof typeof RAW_REPORT_KIND_HINT, text: string): unknown {
  switch (kind) {
    case 'text':
      return text
    case 'flag':
      return text === 'true' ? true : text === 'false' ? false : undefined
    case 'names': {
      const list = text.trimStart().startsWith('[')
        ? rawJson(name, text)
        : text.split(',').map((n) => n.trim())
      return Array.isArray(list) && list.length > 0 && list.every((n) => typeof n === 'string' && n !== '')
        ? list
        : undefined
    }
    case 'objects': {
      const list = rawJson(name, text)
      return Array.isArray(list) && list.every(isObject) ? list : undefined
    }
    case 'object': {
      const value = rawJson(name, text)
      return isObject(value) ? value : undefined
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The raw parameters as runReport body fields with their JSON types (`raw=dimensionFilter%3D{...}` sends the
 * filter object, not a string GA4 would refuse); a name the body does not take, or a value not of its type,
 * is a 400 naming it, before the call.
 */
function rawBodyParams(raw: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, text] of Object.entries(raw)) {
    const kind = Object.hasOwn(RAW_REPORT_FIELDS, name) ? RAW_REPORT_FIELDS[name] : undefined
    if (kind === undefined) {
      throw badRequest(
        `raw: GA4's runReport body takes no '${name}'; a report's raw parameters join that body, which takes ` +
          `${Object.keys(RAW_REPORT_FIELDS).join(', ')} (Unigate sets the others)`,
      )
    }
    const value = rawReportValue(name, kind, text)
    if (value === undefined) throw badRequest(`raw.${name}: ${RAW_REPORT_KIND_HINT[kind]}`)
    out[name] = value
  }
  return out
}

/**
 * What a report list asks GA4, from the query alone: the property, metrics, dimension and days; a 400 naming
 * what GA4's runReport would refuse.
 */
function reportAsked(query: ListQuery) {
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
  return { name, params, metrics, dimension, days }
}

/**
 * A runReport over the requested days. Days are the property's calendar days: without dates the range
 * is GA4's own `27daysAgo`..`today`, resolved afterwards with the time zone GA4 reports in `metadata`.
 * `limit`/`offset` are GA4's own row paging, so page N is one call.
 */
async function listReports(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const { name, params, metrics, dimension, days } = reportAsked(query)
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
      // GA4 leaves out a row whose metrics are all 0 unless asked to keep it ("If false or unspecified,
      // each row with all metrics equal to 0 will not be returned": googleapis/googleapis@3597f7db:
      // google/analytics/data/v1beta/analytics_data_api.proto, RunReportRequest.keep_empty_rows), so a day
      // or a breakdown value GA4 has data for but none of the metrics asked would vanish instead of reading
      // 0. A caller's raw keepEmptyRows=false replaces this.
      keepEmptyRows: true,
      // The caller's next: Unigate's own names are refused (rawOwned), so nothing below replaces one.
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
  checkList: (q) => void reportAsked(q),
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // What Unigate sets in the runReport body and reads the rows by: a raw one (a string) would replace it.
  rawOwned: {
    property: 'use property_id',
    dateRanges: 'use start_gte and end_lt',
    dimensions: 'use dimension',
    metrics: 'use type',
    limit: 'Unigate pages with limit and offset',
    offset: 'Unigate pages with limit and offset',
    orderBys: 'Unigate orders the rows it pages with limit and offset',
  },
}

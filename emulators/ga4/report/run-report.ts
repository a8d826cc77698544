import { addDays, dayIn, isCalendarDay } from '../../google/calendar.js'
import { invalidArgument } from '../../google/errors.js'
import { type Fact, factsFor } from '../data/facts.js'
import { matchesFilter, matchesMetricFilter } from './filter.js'
import { formatMetric, METRICS } from './metrics.js'
import type { PropertyQuotas } from './quota.js'
import type { OrderBy, RunReportRequest } from './request.js'

export interface ReportProperty {
  readonly name: string
  readonly number: number
  readonly timeZone: string
  readonly currencyCode: string
}

export interface ReportSettings {
  readonly seed: number
  readonly factsPerDay: number
  readonly now: number
  readonly quotas: PropertyQuotas
}

/**
 * GA4 refuses ranges that start before this day. UNCONFIRMED: the rule is cited from the DateRange
 * reference page (https://developers.google.com/analytics/devguides/reporting/data/v1/rest/v1beta/DateRange),
 * but the API's own definition of DateRange (googleapis/googleapis@5bb0518f:google/analytics/data/v1beta/
 * data.proto) says nothing of it; kept because refusing is the stricter reading.
 */
const FIRST_DAY = '2015-08-14'

/**
 * `YYYY-MM-DD`, `NdaysAgo`, `yesterday` or `today`, the relative forms "inferred based on the property's
 * reporting time zone"; start cannot be after end (data.proto DateRange).
 */
function resolveDate(value: string, today: string): string {
  if (value === 'today') return today
  if (value === 'yesterday') return addDays(today, -1)
  const ago = /^(\d+)daysAgo$/.exec(value)
  if (ago) return addDays(today, -Number(ago[1]))
  if (isCalendarDay(value)) return value
  throw invalidArgument(
    `Invalid date "${value}". Use the format YYYY-MM-DD, or relative dates such as "today", "yesterday" or "NdaysAgo".`,
  )
}

function compareRows(a: Row, b: Row, orderBys: readonly OrderBy[], req: RunReportRequest): number {
  for (const o of orderBys) {
    let c = 0
    if (o.metric) {
      const i = req.metrics.indexOf(o.metric.metricName)
      c = (a.values[i] ?? 0) - (b.values[i] ?? 0)
    } else if (o.dimension) {
      const i = req.dimensions.indexOf(o.dimension.dimensionName)
      const x = a.dims[i] ?? ''
      const y = b.dims[i] ?? ''
      const type = o.dimension.orderType
      c =
        type === 'NUMERIC'
          ? Number(x) - Number(y)
          : type === 'CASE_INSENSITIVE_ALPHANUMERIC'
            ? x.toLowerCase().localeCompare(y.toLowerCase())
            : x < y
              ? -1
              : x > y
                ? 1
                : 0
    }
    if (c !== 0) return o.desc ? -c : c
  }
  return 0
}

interface Row {
  readonly dims: string[]
  readonly values: number[]
}

/** Runs one report the way the Data API does: group the facts of the date ranges, order, page, format. */
export function runReport(req: RunReportRequest, property: ReportProperty, settings: ReportSettings) {
  const today = dayIn(settings.now, property.timeZone)
  const ranges = req.dateRanges.map((r, i) => {
    const start = resolveDate(r.startDate, today)
    const end = resolveDate(r.endDate, today)
    if (start < FIRST_DAY)
      throw invalidArgument(`Invalid date range: dates before ${FIRST_DAY} are not allowed.`)
    if (start > end) throw invalidArgument(`Invalid date range: startDate ${start} is after endDate ${end}.`)
    return { start, end, name: r.name ?? `date_range_${i}` }
  })
  // Several ranges: every row carries the range's name (`date_range_0`… unless named) as a `dateRange`
  // dimension (analytics_data_api.proto RunReportRequest.date_ranges; data.proto DateRange.name).
  const multi = ranges.length > 1
  const dimensions = multi ? [...req.dimensions, 'dateRange'] : [...req.dimensions]
  const groups = new Map<string, { dims: string[]; counts: Record<string, number> }>()
  let scanned = 0
  for (const range of ranges) {
    for (let day = range.start; day <= range.end && day <= today; day = addDays(day, 1)) {
      for (const fact of factsFor(settings.seed, property.number, day, settings.factsPerDay)) {
        scanned++
        const dims: Fact['dims'] = multi ? { ...fact.dims, dateRange: range.name } : fact.dims
        if (req.dimensionFilter && !matchesFilter(req.dimensionFilter, dims)) continue
        const values = dimensions.map((d) => dims[d] ?? '(not set)')
        const key = values.join('\u0000')
        let g = groups.get(key)
        if (!g) {
          g = { dims: values, counts: {} }
          groups.set(key, g)
        }
        for (const [k, v] of Object.entries(fact.counts)) g.counts[k] = (g.counts[k] ?? 0) + v
      }
    }
  }
  // Token costs grow with the rows a report reads; Google publishes no formula
  // (https://developers.google.com/analytics/devguides/reporting/data/v1/quotas), so this one is ours.
  const propertyQuota = settings.quotas.charge(property.name, 1 + Math.floor(scanned / 500))
  // The metric filter keeps the grouped rows whose values pass it (filter.ts); totals count the rows kept.
  // UNCONFIRMED: whether GA4's totals count the rows a metric filter leaves out is not documented.
  const kept = [...groups.values()].filter(
    (g) => !req.metricFilter || matchesMetricFilter(req.metricFilter, (m) => METRICS[m]?.compute(g.counts)),
  )
  // "If false or unspecified, each row with all metrics equal to 0 will not be returned. If true, these
  // rows will be returned if they are not separately removed by a filter." (googleapis/googleapis@3597f7db:
  // google/analytics/data/v1beta/analytics_data_api.proto, RunReportRequest.keep_empty_rows). Totals
  // still count every grouped row kept by the filters.
  const rows: Row[] = kept
    .map((g) => ({
      dims: g.dims,
      values: req.metrics.map((m) => METRICS[m]?.compute(g.counts) ?? 0),
    }))
    .filter((r) => req.keepEmptyRows || r.values.some((v) => v !== 0))
  // Without orderBys the order is not documented (data.proto OrderBy); biggest first by the first metric
  // is what GA4 is seen to do, and connectors should not rely on it.
  const orderBys: OrderBy[] =
    req.orderBys.length > 0
      ? [...req.orderBys]
      : req.metrics[0]
        ? [{ desc: true, metric: { metricName: req.metrics[0] } }]
        : []
  rows.sort(
    (a, b) => compareRows(a, b, orderBys, req) || a.dims.join('\u0000').localeCompare(b.dims.join('\u0000')),
  )
  const page = rows.slice(req.offset, req.offset + req.limit)
  const types = req.metrics.map((m) => METRICS[m]?.type ?? 'TYPE_INTEGER')
  const fmt = (values: number[]) =>
    values.map((v, i) => ({ value: formatMetric(types[i] ?? 'TYPE_INTEGER', v) }))
  const aggregate = (pick: (vs: number[]) => number, label: string) => ({
    dimensionValues: dimensions.map(() => ({ value: label })),
    metricValues: fmt(req.metrics.map((_, i) => pick(rows.map((r) => r.values[i] ?? 0)))),
  })
  const aggregates: Record<string, unknown> = {}
  // totals/maximums/minimums are Rows "if requested" (RunReportResponse, analytics_data_api.proto). Their
  // dimension values RESERVED_TOTAL / RESERVED_MAX / RESERVED_MIN are what GA4 is seen to send; neither
  // the proto nor the reference pages reachable here spell them out.
  if (req.metricAggregations.includes('TOTAL') && rows.length > 0) {
    // Totals are recomputed from all counts, so rates are the overall rate, not a sum of rates.
    const all: Record<string, number> = {}
    for (const g of kept) for (const [k, v] of Object.entries(g.counts)) all[k] = (all[k] ?? 0) + v
    aggregates.totals = [
      {
        dimensionValues: dimensions.map(() => ({ value: 'RESERVED_TOTAL' })),
        metricValues: fmt(req.metrics.map((m) => METRICS[m]?.compute(all) ?? 0)),
      },
    ]
  }
  if (req.metricAggregations.includes('MAXIMUM') && rows.length > 0) {
    aggregates.maximums = [aggregate((vs) => Math.max(...vs), 'RESERVED_MAX')]
  }
  if (req.metricAggregations.includes('MINIMUM') && rows.length > 0) {
    aggregates.minimums = [aggregate((vs) => Math.min(...vs), 'RESERVED_MIN')]
  }
  // proto3 JSON leaves out empty lists and zero numbers: no `rows` and no `rowCount` for an empty report.
  return {
    ...(dimensions.length > 0 ? { dimensionHeaders: dimensions.map((name) => ({ name })) } : {}),
    metricHeaders: req.metrics.map((name, i) => ({ name, type: types[i] })),
    ...(page.length > 0
      ? {
          rows: page.map((r) => ({
            dimensionValues: r.dims.map((value) => ({ value })),
            metricValues: fmt(r.values),
          })),
        }
      : {}),
    ...aggregates,
    ...(rows.length > 0 ? { rowCount: rows.length } : {}),
    metadata: { currencyCode: req.currencyCode ?? property.currencyCode, timeZone: property.timeZone },
    ...(req.returnPropertyQuota ? { propertyQuota } : {}),
    kind: 'analyticsData#runReport',
  }
}

import { badRequest, notImplemented, ProviderError } from '../../errors.js'
import {
  DIMENSIONS,
  type Dimension,
  METRIC_TYPES,
  type MetricType,
  type UnifiedRecord,
} from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { reportQuery } from './hogql.js'
import { fromPosthogReport, type ReportMetricValue } from './mappers.js'
import {
  DEFAULT_REPORT_METRICS,
  REPORT_DIMENSIONS,
  REPORT_METRICS,
  type ReportTable,
} from './report-catalog.js'
import { checkPropertyFilter, HOGQL_OWNED, projectIdOf, runHogQL, zoneOf } from './requests.js'
import {
  maxTimeBuckets,
  type TimeDimension,
  timeBucketKey,
  timeBucketKeys,
  ZERO_WHEN_EMPTY,
} from './time-buckets.js'
import { boundedRange } from './windows.js'

/**
 * Reports are HogQL aggregates. Without a dimension there is one report for the range; with one, one report
 * per dimension value (in ascending order, which is what limit/offset page over). Metrics over events and
 * over sessions are two queries merged by dimension value, USERS a third (report-catalog.ts `ownQuery`).
 */

function metricTypesOf(value: unknown, dimension: Dimension | undefined): MetricType[] {
  if (typeof value !== 'string') {
    return DEFAULT_REPORT_METRICS.filter(
      (t) => !dimension || REPORT_DIMENSIONS[dimension]?.[REPORT_METRICS[t]!.table],
    )
  }
  const types = [...new Set(value.split(',').map((t) => t.trim().toUpperCase()))]
  for (const t of types) {
    if (!(METRIC_TYPES as readonly string[]).includes(t)) {
      throw badRequest(`type: '${t}' is not a report metric; use one of ${METRIC_TYPES.join(', ')}`)
    }
    if (!REPORT_METRICS[t as MetricType]) {
      throw notImplemented(
        `PostHog (posthog) cannot report ${t}; it can report ${Object.keys(REPORT_METRICS).join(', ')}`,
      )
    }
  }
  return types as MetricType[]
}

function dimensionOf(value: unknown): Dimension | undefined {
  if (typeof value !== 'string') return undefined
  const d = value.trim().toUpperCase()
  if (!(DIMENSIONS as readonly string[]).includes(d)) {
    throw badRequest(`dimension: '${value}' is not a report dimension; use one of ${DIMENSIONS.join(', ')}`)
  }
  if (!REPORT_DIMENSIONS[d as Dimension]) {
    throw notImplemented(
      `PostHog (posthog) cannot break reports down by ${d}; it can by ${Object.keys(REPORT_DIMENSIONS).join(', ')}`,
    )
  }
  return d as Dimension
}

/** One query: its metrics' table, named by the table or, for a metric in its own query, by the metric. */
interface TablePlan {
  readonly key: string
  readonly table: ReportTable
  readonly types: MetricType[]
  readonly hogql: string
  /** How many columns the query selects: its dimension's, if any, and one per metric. */
  readonly columns: number
}

interface Bucket {
  readonly value: unknown
  readonly values: Map<MetricType, unknown>
  readonly rows: Record<string, Record<string, unknown>>
}

function compareBucketValues(a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1
  if (b === null || b === undefined) return -1
  const x = String(a)
  const y = String(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/**
 * What a report list asks, from the query alone (`now` ends a window without end_lt): its metrics, its
 * dimension, its window and the queries it takes, or the 400 or 501 PostHog's reports answer for it.
 */
function reportPlan(query: ListQuery, now: Date) {
  const f = query.filters
  const dimension = dimensionOf(f.dimension)
  const types = metricTypesOf(f.type, dimension)
  // Without start_gte a report covers the default window (windows.ts), and its start_at says so.
  const { start, end } = boundedRange(
    f.start_gte instanceof Date ? f.start_gte : undefined,
    f.end_lt instanceof Date ? f.end_lt : undefined,
    now,
  )
  // Without end_lt the window runs to now, and the reports say so (end_at), as every integration's do.
  const until = end ?? now
  // A window without an instant in it has no report: counting zeros for it (its start_at after its end_at)
  // would hide swapped bounds, which every other integration refuses.
  if (start.getTime() >= until.getTime()) {
    throw badRequest(`start_gte must be before end_lt${end ? '' : ' (without end_lt: now)'}`)
  }

  const byQuery = new Map<string, { table: ReportTable; types: MetricType[] }>()
  for (const t of types) {
    const { table, ownQuery } = REPORT_METRICS[t]!
    if (dimension && !REPORT_DIMENSIONS[dimension]?.[table]) {
      throw notImplemented(`PostHog (posthog) cannot break ${t} down by ${dimension}`)
    }
    const key = ownQuery ? t.toLowerCase() : table
    const group = byQuery.get(key) ?? { table, types: [] }
    group.types.push(t)
    byQuery.set(key, group)
  }
  // DATE and HOUR answer every bucket of the range, empty ones too (time-buckets.ts): each table answers all
  // of its buckets and the filled series pages here.
  const timeDimension: TimeDimension | undefined =
    dimension === 'DATE' || dimension === 'HOUR' ? dimension : undefined
  const timeLimit = timeDimension ? maxTimeBuckets(timeDimension, start, until) : 0
  return { dimension, types, start, until, byQuery, timeDimension, timeLimit }
}

/**
 * A HogQL answer names one column per expression its query selects (PostHog's HogQLQueryResponse `columns`,
 * posthog/hogql/query.py, and the emulator's query route): a report pairs every row's values with those
 * names (`raw`), so an answer naming more is refused before any row is read. A connection's `api_url` may
 * name a server of its creator's, whose 200,000 column names over 20 rows (2 MB, under every other bound)
 * held the event loop for 5 s and took 450 MB (a security review, reproduced).
 */
function checkColumns(columns: readonly unknown[], selected: number): void {
  if (columns.length !== selected) {
    throw new ProviderError(
      502,
      `PostHog answered ${columns.length} columns to a report query selecting ${selected}; not passed on`,
    )
  }
}

async function listReports(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const projectId = projectIdOf(ctx, query.filters.property_id)
  const { dimension, types, start, until, byQuery, timeDimension, timeLimit } = reportPlan(query, new Date())
  if (!dimension && query.offset > 0) return []
  // Otherwise one query pages in HogQL; several each answer their first offset+limit values, and the merge
  // pages.
  const single = byQuery.size === 1 && !timeDimension
  const rowLimit = timeDimension
    ? timeLimit
    : dimension
      ? single
        ? query.limit
        : query.offset + query.limit
      : 1
  const plans: TablePlan[] = [...byQuery].map(([key, { table, types: tableTypes }]) => {
    const dimensionExpr = dimension ? REPORT_DIMENSIONS[dimension]?.[table] : undefined
    return {
      key,
      table,
      types: tableTypes,
      columns: (dimensionExpr ? 1 : 0) + tableTypes.length,
      hogql: reportQuery({
        table,
        metrics: tableTypes.map((t) => REPORT_METRICS[t]!.expr),
        dimension: dimensionExpr,
        start,
        // Bounded at the end_at the reports answer (now without end_lt): PostHog keeps events stamped ahead of
        // its clock, which an open window counted in a report saying it ended before them.
        end: until,
        limit: rowLimit,
        offset: dimension && single ? query.offset : 0,
      }),
    }
  })
  const answers = await Promise.all(
    plans.map(async (p) => {
      const answer = await runHogQL(ctx, projectId, p.hogql, `unigate report ${p.key}`, rowLimit)
      checkColumns(answer.columns, p.columns)
      return answer
    }),
  )
  // DATE and HOUR buckets are the project's local days and hours: their instants need its zone, which the
  // query's answer names (else the project says it).
  const timeZone = timeDimension ? await zoneOf(ctx, projectId, answers[0]?.timezone) : 'UTC'
  if (timeDimension && answers.some((a) => a.hasMore)) {
    // The query is bounded at `until`, so its buckets cannot outnumber the range's; kept as a guard.
    throw badRequest(
      `end_lt: PostHog has more ${timeDimension} buckets than the range holds (events dated in the future); give end_lt`,
    )
  }

  const buckets = new Map<string, Bucket>()
  if (timeDimension) {
    for (const key of timeBucketKeys(timeDimension, start, until, timeZone)) {
      buckets.set(key, { value: key, values: new Map(), rows: {} })
    }
  }
  plans.forEach((plan, i) => {
    const res = answers[i]!
    for (const row of res.results) {
      const timeKey = timeDimension ? timeBucketKey(timeDimension, row[0], timeZone) : undefined
      const value = timeKey ?? (dimension ? row[0] : undefined)
      const key = timeKey ?? JSON.stringify(value ?? null)
      const bucket: Bucket = buckets.get(key) ?? { value, values: new Map(), rows: {} }
      const metricValues = dimension ? row.slice(1) : row
      for (const [j, t] of plan.types.entries()) bucket.values.set(t, metricValues[j])
      bucket.rows[plan.key] = Object.fromEntries(res.columns.map((c, j) => [c, row[j]]))
      buckets.set(key, bucket)
    }
  })
  // A bucket a table has no row for holds none of its events or sessions: its counts are 0.
  for (const bucket of buckets.values()) {
    for (const t of types) if (!bucket.values.has(t) && ZERO_WHEN_EMPTY.has(t)) bucket.values.set(t, 0)
  }
  let ordered = [...buckets.values()]
  if (dimension) {
    ordered.sort((a, b) => compareBucketValues(a.value, b.value))
    if (!single) ordered = ordered.slice(query.offset, query.offset + query.limit)
  }
  const hogql = Object.fromEntries(plans.map((p) => [p.key, p.hogql]))
  return ordered.map((bucket) =>
    fromPosthogReport({
      propertyId: projectId,
      metrics: types.map((type): ReportMetricValue => ({ type, value: bucket.values.get(type) })),
      dimension,
      dimensionValue: bucket.value,
      start,
      end: until,
      timeZone,
      raw: { hogql, rows: bucket.rows },
    }),
  )
}

export const reportHandlers: ObjectHandlers = {
  rawOwned: HOGQL_OWNED,
  list: listReports,
  checkList: (q, nowMs) => {
    checkPropertyFilter(q)
    reportPlan(q, new Date(nowMs))
  },
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
}

import { badRequest, notImplemented, ProviderError } from '../../errors.js'
import type { Dimension } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import { reportParamsOf } from '../report-params.js'
import { isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { callMatomoBulk, type MatomoParams } from './client.js'
import type { MatomoRow, MatomoSite } from './provider-types.js'
import {
  ACTIONS_METRICS,
  MATOMO_DIMENSIONS,
  type MetricMap,
  PERIOD_DIMENSIONS,
  ROW_REPORTS,
  SUMMARY_METRICS,
} from './report-spec.js'
import { startOfDayIn } from './timezone.js'

const DAY_MS = 86_400_000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export interface ReportMetric {
  value: number
  type: string
  dimension?: string
  dimension_value?: string
}

/** Maps one Matomo record's columns; numbers may arrive as strings, formatted ones (`"40%"`) are skipped. */
export function fromMatomoMetrics(
  record: Readonly<Record<string, unknown>>,
  map: MetricMap,
  dimension?: { dimension: string; value: string },
): ReportMetric[] {
  const out: ReportMetric[] = []
  for (const [column, type] of Object.entries(map)) {
    const raw = record[column]
    if (raw === undefined || raw === null || raw === '') continue
    const value = Number(raw)
    if (!Number.isFinite(value)) continue
    out.push(
      dimension
        ? { value, type, dimension: dimension.dimension, dimension_value: dimension.value }
        : { value, type },
    )
  }
  return out
}

/** The periods Matomo counts unique visitors for by default (`enable_processing_unique_visitors_*`). */
const UNIQUES_PERIODS = new Set(['day', 'week', 'month'])

/**
 * A `VisitsSummary.get` or `Actions.get` answer for one period as a record of columns. Matomo answers a
 * period without visits with an empty list (core/API/ResponseBuilder.php renders the empty DataTable so):
 * that is zero visits, so every column of `map` it would give for the period is 0 (its rates too, which
 * Matomo computes as 0 without visits: matomo-org/matomo core/Piwik.php getQuotientSafe), as every other integration reports a quiet
 * window, rather than no metrics at all.
 */
function periodRecord(answer: unknown, map: MetricMap, period: string): Readonly<Record<string, unknown>> {
  if (isRecord(answer)) return answer
  if (!Array.isArray(answer) || answer.length > 0) return {}
  const columns = Object.keys(map).filter((c) => c !== 'nb_uniq_visitors' || UNIQUES_PERIODS.has(period))
  return Object.fromEntries(columns.map((c) => [c, 0]))
}

/** Matomo reports whole days of the site's calendar: the unified window must be whole days too. */
function daysOf(q: ListQuery, nowMs: number): { first: string; last: string } {
  const start = q.filters.start_gte
  const end = q.filters.end_lt
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS
  const endMs = end instanceof Date ? end.getTime() : today
  const startMs = start instanceof Date ? start.getTime() : endMs - 7 * DAY_MS
  for (const [name, ms] of [
    ['start_gte', startMs],
    ['end_lt', endMs],
  ] as const) {
    if (ms % DAY_MS !== 0) {
      throw badRequest(`${name}: Matomo reports whole days in the site's timezone; give a date (YYYY-MM-DD)`)
    }
  }
  if (endMs <= startMs) throw badRequest('end_lt must be after start_gte')
  return { first: dayOf(startMs), last: dayOf(endMs - DAY_MS) }
}

const addDays = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS)

/**
 * The days a WEEK/MONTH/YEAR series really covers: Matomo answers `period=week|month|year` over a date
 * range with every whole period touching it, Monday-to-Sunday weeks included
 * (matomo-org/matomo@f09912cb:core/Period/Range.php fillArraySubPeriods, core/Period/Week.php), so the
 * report claims those whole periods rather than the narrower window asked for.
 */
export function widenToPeriods(
  period: string | undefined,
  first: string,
  last: string,
): { first: string; last: string } {
  switch (period) {
    case 'week': {
      const weekday = (d: string) => (new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7
      return { first: addDays(first, -weekday(first)), last: addDays(last, 6 - weekday(last)) }
    }
    case 'month': {
      const next = new Date(`${last.slice(0, 7)}-01T00:00:00Z`)
      next.setUTCMonth(next.getUTCMonth() + 1)
      return { first: `${first.slice(0, 7)}-01`, last: addDays(dayOf(next.getTime()), -1) }
    }
    case 'year':
      return { first: `${first.slice(0, 4)}-01-01`, last: `${last.slice(0, 4)}-12-31` }
    default:
      return { first, last }
  }
}

/**
 * The most periods a series asks Matomo for: Matomo's own cap on a series it is asked for by count
 * (`date=lastN`: 5 × 365 days, 10 × 52 weeks, 10 × 12 months, 10 years;
 * matomo-org/matomo@f09912cb:core/Period/Range.php getMaxN). A series over `date=a,b` has no such cap in
 * Matomo: it archives and answers every period of the range (Range::generate, fillArraySubPeriods; only
 * the end is moved back to December 31st ten years from now, getMaxAllowedEndTimestamp), each period an
 * archive and a key of one answer, so a window of centuries asked by day meant hours of work and an answer
 * past any memory. The same windows Matomo serves by count are served here by dates; a longer one is a 400.
 */
export const MAX_SERIES_PERIODS: Readonly<Record<string, { readonly n: number; readonly unit: string }>> = {
  day: { n: 5 * 365, unit: 'days' },
  week: { n: 10 * 52, unit: 'weeks' },
  month: { n: 10 * 12, unit: 'months' },
  year: { n: 10, unit: 'years' },
}

/** How many periods of `period` the whole-period window `first..last` (widenToPeriods) holds. */
function periodsIn(period: string, first: string, last: string): number {
  const days = Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS) + 1
  const months =
    (Number(last.slice(0, 4)) - Number(first.slice(0, 4))) * 12 +
    Number(last.slice(5, 7)) -
    Number(first.slice(5, 7)) +
    1
  switch (period) {
    case 'week':
      return Math.ceil(days / 7)
    case 'month':
      return months
    case 'year':
      return Number(last.slice(0, 4)) - Number(first.slice(0, 4)) + 1
    default:
      return days
  }
}

/** Refuses a series longer than MAX_SERIES_PERIODS, naming the window's parameters and the longest allowed. */
function checkSeriesLength(dimension: Dimension, period: string, first: string, last: string): void {
  const cap = MAX_SERIES_PERIODS[period]
  if (!cap) return
  const n = periodsIn(period, first, last)
  if (n <= cap.n) return
  throw badRequest(
    `start_gte/end_lt: a Matomo ${dimension} series covers at most ${cap.n} ${cap.unit}, the longest series Matomo itself serves; ` +
      `${first}..${last} holds ${n}: narrow start_gte..end_lt${period === 'year' ? ', or leave out dimension for totals' : ' or use a coarser dimension'}`,
  )
}

/** The longest key of a period series: a week's two days (`2024-04-29,2024-05-05`), with room to spare. */
const SERIES_KEY_LENGTH = 32

/**
 * A series answer keyed by the periods of the window asked for (core/API/ResponseBuilder.php renders a
 * DataTable\Map keyed by period): more keys than the window holds periods, or a key longer than a period's
 * label, is not Matomo's, and is a 502 before any is read. Each key became five or six metrics repeating it,
 * and an api_url of a connection's creator answering 300,000 keys of 90 characters (30 MB, under the value
 * bound) made a 305 MB answer and an 11 s hold (a security review, reproduced).
 */
function checkSeriesKeys(keys: readonly string[], periods: number): void {
  const long = keys.find((key) => key.length > SERIES_KEY_LENGTH)
  if (keys.length > periods || long !== undefined) {
    throw new ProviderError(
      502,
      long !== undefined
        ? `Matomo answered a series period labelled '${long.slice(0, 40)}…', which no period is; not read`
        : `Matomo answered ${keys.length} periods for a window of ${periods}; not read`,
    )
  }
}

/**
 * A period series key as the unified `dimension_value`, in the one form of time labels (time-buckets.ts):
 * a day `2024-05-01`, a week by its first day (Matomo's `2024-04-29,2024-05-05` is `2024-04-29`), a month
 * `2024-05`, a year `2024`, all of the site's calendar. Matomo counts whole weeks, and the report's window
 * (`start_at`) is widened to them (widenToPeriods), so a week is never cut by the window: its first day is
 * its Monday, even where the window asked for began later. Undefined dimensions keep Matomo's key.
 */
export function periodLabel(dimension: string, key: string): string {
  if (!isTimeDimension(dimension)) return key
  const first = dimension === 'WEEK' ? (key.split(',')[0] ?? key) : key
  return timeBucketLabelOf(dimension, first) ?? key
}

/**
 * The label of Matomo's summary row in English, the language reports are asked in (lang/en.json
 * General_Others; core/DataTable/Filter/ReplaceSummaryRowLabel.php, matomo-org/matomo@f09912cb).
 */
export const SUMMARY_ROW_LABEL = 'Others'

/**
 * The archived summary row of a row report, if the answer has one. Matomo archives at most
 * `datatable_archiving_maximum_rows_*` rows per table and sums the rest into a summary row (id -1)
 * (core/DataTable.php getSerialized, core/DataTable/Filter/Truncate.php); with `filter_limit=-1` the API
 * keeps it (core/DataTable/Filter/Limit.php deletes nothing), whatever `keep_summary_row` says. JSON shows
 * no id: a flattened report marks it `is_summary` (core/API/DataTableManipulator/Flattener.php), anywhere
 * in the sorted rows; otherwise it is the last row (core/DataTable.php getRows) and only its label,
 * "Others" in the request's language, tells it apart. A real last row labelled "Others" is therefore
 * taken for it: a loud failure rather than a silently partial breakdown.
 */
export function summaryRowIn(rows: readonly MatomoRow[], flat: boolean): MatomoRow | undefined {
  if (flat) return rows.find((r) => r.is_summary === true || r.is_summary === 1 || r.is_summary === '1')
  const last = rows[rows.length - 1]
  return last?.label === SUMMARY_ROW_LABEL ? last : undefined
}

/** Valid enum values (400 otherwise, by the shared report parameters), then what Matomo can serve (501). */
function checkEnums(q: ListQuery): { dimension?: Dimension; types?: ReadonlySet<string> } {
  const { dimension, types } = reportParamsOf(q)
  if (dimension !== undefined && !MATOMO_DIMENSIONS.includes(dimension)) {
    throw notImplemented(
      `Matomo (matomo) cannot break reports down by ${dimension}; it can by ${MATOMO_DIMENSIONS.join(', ')}`,
    )
  }
  return { ...(dimension ? { dimension: dimension as Dimension } : {}), ...(types ? { types } : {}) }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v)
}

/**
 * What a report list asks Matomo, from the query alone (`nowMs` ends a window without end_lt): the site, the
 * dimension and metrics, and the days read; a 400 or 501 for what Matomo cannot be asked.
 */
function reportAsked(q: ListQuery, nowMs: number) {
  const idSite = q.filters.property_id
  if (typeof idSite !== 'string' || !/^\d+$/.test(idSite)) {
    throw badRequest('Matomo needs property_id (the numeric site id) to list reports')
  }
  const { dimension, types } = checkEnums(q)
  const period = dimension ? PERIOD_DIMENSIONS[dimension] : undefined
  const days = daysOf(q, nowMs)
  const { first, last } = widenToPeriods(period, days.first, days.last)
  if (period && dimension) checkSeriesLength(dimension, period, first, last)
  return { idSite, dimension, types, period, first, last }
}

async function listReports(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { idSite, dimension, types, period, first, last } = reportAsked(q, Date.now())
  const base: MatomoParams = { idSite, date: `${first},${last}`, format_metrics: 0 }
  const site = { method: 'SitesManager.getSiteFromId', params: { idSite } }
  const row = dimension ? ROW_REPORTS[dimension] : undefined
  let metrics: ReportMetric[]
  let raw: Record<string, unknown>
  let siteInfo: MatomoSite
  if (row && dimension) {
    const methods = typeof row.method === 'string' ? [row.method] : (row.method as readonly string[])
    const answers = await callMatomoBulk(
      ctx,
      [
        ...methods.map((method) => ({
          method,
          // Every row (filter_limit=-1): Matomo's default of 100 rows would cut a breakdown silently.
          params: {
            filter_limit: -1,
            ...ctx.rawParams,
            ...base,
            period: 'range',
            ...(row.flat ? { flat: 1 } : {}),
          },
        })),
        site,
      ],
      // English, so the summary row's label is known (and dimension values do not follow the user's language).
      { language: 'en' },
    )
    siteInfo = answers[methods.length] as MatomoSite
    raw = Object.fromEntries(methods.map((method, i) => [method, answers[i]]))
    const tables = methods.map((_, i) => (Array.isArray(answers[i]) ? (answers[i] as MatomoRow[]) : []))
    if (tables.some((table) => summaryRowIn(table, row.flat === true))) {
      throw new ProviderError(
        502,
        `Matomo archived the ${dimension} breakdown of ${first}..${last} truncated: past its row cap it keeps the rows with the most visits and sums the others into one "${SUMMARY_ROW_LABEL}" row, so the breakdown is incomplete. ` +
          `The cap is Matomo's ${row.cap ?? 'archiving row limit'} setting (config/config.ini.php [General]); a Matomo administrator can raise it and re-archive these dates. Otherwise narrow start_gte/end_lt.`,
      )
    }
    metrics = tables.flatMap((table) =>
      table.flatMap((r) => fromMatomoMetrics(r, row.metrics, { dimension, value: row.valueOf(r) })),
    )
  } else {
    const p = { ...ctx.rawParams, ...base, period: period ?? 'range' }
    const [summary, actions, s] = await callMatomoBulk(ctx, [
      { method: 'VisitsSummary.get', params: p },
      { method: 'Actions.get', params: p },
      site,
    ])
    siteInfo = s as MatomoSite
    raw = { 'VisitsSummary.get': summary, 'Actions.get': actions }
    if (period && dimension && isRecord(summary) && isRecord(actions)) {
      // A period series comes keyed by period label (`2024-05-01`, `2024-04-29,2024-05-05`, `2024-05`, `2024`).
      checkSeriesKeys(Object.keys(summary), periodsIn(period, first, last))
      metrics = Object.keys(summary).flatMap((key) => [
        ...fromMatomoMetrics(periodRecord(summary[key], SUMMARY_METRICS, period), SUMMARY_METRICS, {
          dimension,
          value: periodLabel(dimension, key),
        }),
        ...fromMatomoMetrics(periodRecord(actions[key], ACTIONS_METRICS, period), ACTIONS_METRICS, {
          dimension,
          value: periodLabel(dimension, key),
        }),
      ])
    } else {
      const p = period ?? 'range'
      metrics = [
        ...fromMatomoMetrics(periodRecord(summary, SUMMARY_METRICS, p), SUMMARY_METRICS),
        ...fromMatomoMetrics(periodRecord(actions, ACTIONS_METRICS, p), ACTIONS_METRICS),
      ]
    }
  }
  if (types) {
    metrics = metrics.filter((m) => types.has(m.type))
    const missing = [...types].filter((t) => !metrics.some((m) => m.type === t))
    if (missing.length > 0) {
      throw notImplemented(
        `Matomo (matomo) does not report ${missing.join(', ')}${dimension ? ` by ${dimension}` : ''} for this period`,
      )
    }
  }
  const report: UnifiedRecord = {
    id: `${idSite}:${dimension ?? 'TOTAL'}:${first}:${last}`,
    property_id: idSite,
    start_at: startOfDayIn(first, siteInfo?.timezone),
    end_at: startOfDayIn(dayOf(Date.parse(`${last}T00:00:00Z`) + DAY_MS), siteInfo?.timezone),
    metrics,
    raw: { ...raw, timezone: siteInfo?.timezone },
  }
  return [report].slice(q.offset, q.offset + q.limit)
}

/**
 * One report per request: the metrics of the window, broken down by at most one dimension. `type` keeps
 * one metric; `raw` keeps every Matomo column, mapped or not.
 */
export const reportHandlers: ObjectHandlers = {
  list: listReports,
  checkList: (q, nowMs) => void reportAsked(q, nowMs),
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
}

import { addDays, dayIn, isCalendarDay } from '../google/calendar.js'
import { GoogleApiError, type LegacyError } from '../google/errors.js'
import { factsFor } from './data/facts.js'
import type { EmulatedChannel } from './data/seed.js'

/** YouTube Analytics `reports.query`: validation of the documented rules, then grouping of the facts. */

type Counts = Readonly<Record<string, number>>
const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b)

export const METRICS: Readonly<Record<string, { dataType: string; compute(c: Counts): number }>> = {
  views: { dataType: 'INTEGER', compute: (c) => c.views ?? 0 },
  estimatedMinutesWatched: { dataType: 'INTEGER', compute: (c) => Math.round((c.watchSeconds ?? 0) / 60) },
  averageViewDuration: {
    dataType: 'INTEGER',
    compute: (c) => Math.round(ratio(c.watchSeconds ?? 0, c.views ?? 0)),
  },
  averageViewPercentage: {
    dataType: 'FLOAT',
    compute: (c) => Math.round(ratio(c.viewPercentSum ?? 0, c.views ?? 0) * 100) / 100,
  },
  likes: { dataType: 'INTEGER', compute: (c) => c.likes ?? 0 },
  dislikes: { dataType: 'INTEGER', compute: (c) => c.dislikes ?? 0 },
  comments: { dataType: 'INTEGER', compute: (c) => c.comments ?? 0 },
  shares: { dataType: 'INTEGER', compute: (c) => c.shares ?? 0 },
  subscribersGained: { dataType: 'INTEGER', compute: (c) => c.subscribersGained ?? 0 },
  subscribersLost: { dataType: 'INTEGER', compute: (c) => c.subscribersLost ?? 0 },
  estimatedRevenue: { dataType: 'FLOAT', compute: (c) => (c.revenueCents ?? 0) / 100 },
}
/** Revenue metrics need yt-analytics-monetary.readonly (https://developers.google.com/youtube/analytics/metrics#Revenue_Metrics). */
export const MONETARY = new Set(['estimatedRevenue'])
const DIMENSIONS = new Set([
  'day',
  'month',
  'country',
  'city',
  'continent',
  'deviceType',
  'operatingSystem',
  'insightTrafficSourceType',
  'video',
  'channel',
])

const CORE = [
  'views',
  'estimatedMinutesWatched',
  'averageViewDuration',
  'averageViewPercentage',
  'likes',
  'dislikes',
  'comments',
  'shares',
  'subscribersGained',
  'subscribersLost',
  'estimatedRevenue',
]
const WATCHING = ['views', 'estimatedMinutesWatched', 'averageViewDuration', 'averageViewPercentage']
/**
 * The "available reports": allowed metrics per dimension list, and top-N caps on maxResults
 * (https://developers.google.com/youtube/analytics/channel_reports,
 * https://developers.google.com/youtube/analytics/content_owner_reports).
 */
const REPORTS: Readonly<Record<string, { metrics: readonly string[]; topN?: number }>> = {
  '': { metrics: CORE },
  day: { metrics: CORE },
  month: { metrics: CORE },
  country: { metrics: CORE },
  video: { metrics: CORE, topN: 200 },
  city: { metrics: WATCHING, topN: 250 },
  deviceType: { metrics: ['views', 'estimatedMinutesWatched'] },
  operatingSystem: { metrics: ['views', 'estimatedMinutesWatched'] },
  'deviceType,operatingSystem': { metrics: ['views', 'estimatedMinutesWatched'] },
  insightTrafficSourceType: { metrics: ['views', 'estimatedMinutesWatched'] },
  channel: { metrics: CORE, topN: 200 },
}

/** YouTube's answer to a combination the available reports do not list (as YouTube sends it; not in the docs). */
const NOT_SUPPORTED =
  'The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.'

export function badRequest(message: string, reason = 'badRequest'): GoogleApiError {
  const errors: LegacyError[] = [{ message, domain: 'global', reason }]
  return new GoogleApiError(400, message, { errors })
}

export function forbidden(message = 'Forbidden'): GoogleApiError {
  return new GoogleApiError(403, message, { errors: [{ message, domain: 'global', reason: 'forbidden' }] })
}

/**
 * maxResults and startIndex: int32 with `minValue: 1` (googleapis/google-api-go-client@6243c413:
 * youtubeanalytics/v2/youtubeanalytics-api.json, reports.query parameters); the message is Google's usual
 * one for an out-of-range integer.
 */
function positiveInt(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1) {
    throw badRequest(
      `Invalid value '${value}'. Values must be within the range: [1, 2147483647]`,
      'invalidParameter',
    )
  }
  return n
}

function list(value: string | undefined): string[] {
  if (value === undefined || value === '') return []
  return value.split(',').map((v) => v.trim())
}

export interface ReportQuery {
  readonly ids: string
  readonly startDate: string
  readonly endDate: string
  readonly metrics: readonly string[]
  readonly dimensions: readonly string[]
  readonly filters: Readonly<Record<string, readonly string[]>>
  readonly sort: readonly string[]
  readonly maxResults?: number
  readonly startIndex: number
}

/**
 * ids, startDate, endDate and metrics are required; dates `YYYY-MM-DD`; filters `dim==v1,v2` joined by `;`;
 * sort a list of requested dimensions or metrics, `-` for descending (same discovery document,
 * reports.query parameter descriptions). The messages are modelled, not quoted.
 */
export function parseReportQuery(q: Readonly<Record<string, string | undefined>>): ReportQuery {
  for (const name of ['ids', 'startDate', 'endDate', 'metrics'] as const) {
    if (!q[name]) throw badRequest(`Required parameter: ${name}`, 'required')
  }
  const startDate = q.startDate as string
  const endDate = q.endDate as string
  for (const [name, v] of [
    ['startDate', startDate],
    ['endDate', endDate],
  ] as const) {
    if (!isCalendarDay(v))
      throw badRequest(`Invalid value '${v}' for ${name}: use YYYY-MM-DD.`, 'invalidParameter')
  }
  if (startDate > endDate)
    throw badRequest('The start date must be on or before the end date.', 'invalidParameter')
  const metrics = list(q.metrics)
  for (const m of metrics)
    if (!METRICS[m]) throw badRequest(`Unknown identifier (${m}) given in field parameters.metrics.`)
  const dimensions = list(q.dimensions)
  for (const d of dimensions)
    if (!DIMENSIONS.has(d))
      throw badRequest(`Unknown identifier (${d}) given in field parameters.dimensions.`)
  const filters: Record<string, string[]> = {}
  for (const clause of (q.filters ?? '').split(';').filter(Boolean)) {
    const m = /^([A-Za-z]+)==(.+)$/.exec(clause)
    if (!m || !DIMENSIONS.has(m[1] as string))
      throw badRequest(`Invalid filter: ${clause}`, 'invalidParameter')
    filters[m[1] as string] = (m[2] as string).split(',')
  }
  const sort = list(q.sort)
  for (const s of sort) {
    const name = s.replace(/^-/, '')
    if (!dimensions.includes(name) && !metrics.includes(name)) {
      throw badRequest(`Sort field ${name} must be a requested dimension or metric.`, 'invalidParameter')
    }
  }
  const maxResults = q.maxResults === undefined ? undefined : positiveInt(q.maxResults, 0)
  return {
    ids: q.ids as string,
    startDate,
    endDate,
    metrics,
    dimensions,
    filters,
    sort,
    ...(maxResults !== undefined ? { maxResults } : {}),
    startIndex: positiveInt(q.startIndex, 1),
  }
}

/** Checks the query against the available reports, as YouTube does before reading any data. */
export function checkSupported(query: ReportQuery): void {
  const report = REPORTS[query.dimensions.join(',')]
  if (!report || query.metrics.some((m) => !report.metrics.includes(m))) throw badRequest(NOT_SUPPORTED)
  if (report.topN) {
    const first = query.sort[0]
    if (!first?.startsWith('-') || !query.metrics.includes(first.slice(1))) throw badRequest(NOT_SUPPORTED)
    if (query.maxResults === undefined || query.maxResults > report.topN) throw badRequest(NOT_SUPPORTED)
  }
  if (query.dimensions.includes('month')) {
    // Month reports cover whole months: from a first day to a last day (dimension `month`,
    // https://developers.google.com/youtube/analytics/dimsmets/dims#Time_Dimensions).
    if (!query.startDate.endsWith('-01') || !addDays(query.endDate, 1).endsWith('-01')) {
      throw badRequest('Invalid query. Query did not conform to the expectations.', 'invalidQuery')
    }
  }
}

/**
 * Runs the query over the channels it covers. `columnHeaders` list the dimensions then the metrics in the
 * order asked; rows are arrays in that order; with no data `rows` is left out; `kind` is
 * `youtubeAnalytics#resultTable` (discovery document, QueryResponse, ResultTableColumnHeader). Not modelled:
 * "The response for a query with the `day` dimension will not contain rows for the most recent days" (same).
 */
export function runReportQuery(
  query: ReportQuery,
  channels: readonly EmulatedChannel[],
  settings: { seed: number; factsPerDay: number; now: number },
) {
  // Days are Pacific-Time days: "All bulk reports contain data for a unique 24-hour period beginning at
  // 12:00 a.m. Pacific time (UTC-8)" (https://developers.google.com/youtube/reporting/v1/reports/dimensions,
  // `date`), bulk reports being the data reports.query serves (see the README). Daylight saving followed.
  const today = dayIn(settings.now, 'America/Los_Angeles')
  const groups = new Map<string, { dims: string[]; counts: Record<string, number> }>()
  for (const channel of channels) {
    for (let day = query.startDate; day <= query.endDate && day <= today; day = addDays(day, 1)) {
      for (const fact of factsFor(settings.seed, channel, day, settings.factsPerDay)) {
        if (Object.entries(query.filters).some(([k, vs]) => !vs.includes(fact.dims[k] ?? ''))) continue
        const dims = query.dimensions.map((d) => fact.dims[d] ?? '')
        const key = dims.join('\u0000')
        let g = groups.get(key)
        if (!g) {
          g = { dims, counts: {} }
          groups.set(key, g)
        }
        for (const [k, v] of Object.entries(fact.counts)) g.counts[k] = (g.counts[k] ?? 0) + v
      }
    }
  }
  const rows = [...groups.values()].map((g) => [
    ...g.dims,
    ...query.metrics.map((m) => METRICS[m]?.compute(g.counts) ?? 0),
  ])
  const columns = [...query.dimensions, ...query.metrics]
  rows.sort((a, b) => {
    for (const s of query.sort) {
      const i = columns.indexOf(s.replace(/^-/, ''))
      const x = a[i] as string | number
      const y = b[i] as string | number
      const c = x < y ? -1 : x > y ? 1 : 0
      if (c !== 0) return s.startsWith('-') ? -c : c
    }
    return String(a.slice(0, query.dimensions.length)).localeCompare(
      String(b.slice(0, query.dimensions.length)),
    )
  })
  const from = query.startIndex - 1
  const page = rows.slice(from, query.maxResults === undefined ? undefined : from + query.maxResults)
  return {
    kind: 'youtubeAnalytics#resultTable',
    columnHeaders: [
      ...query.dimensions.map((name) => ({ name, columnType: 'DIMENSION', dataType: 'STRING' })),
      ...query.metrics.map((name) => ({
        name,
        columnType: 'METRIC',
        dataType: METRICS[name]?.dataType ?? 'INTEGER',
      })),
    ],
    ...(page.length > 0 ? { rows: page } : {}),
  }
}

import { badRequest, notImplemented, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { reportParamsOf } from '../report-params.js'
import { checkSeriesLength, isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { zonedDayWindow } from '../zoned-days.js'
import { addDays, isTimeZone } from '../zones.js'
import { amplitudeHosts } from './hosts.js'
import type { AmplitudeSegmentation } from './provider-types.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
/** Group-by values per answer: 100 unless `limit`, at most 1000 (Dashboard REST, Event Segmentation `limit`). */
export const GROUP_LIMIT = 1000
/**
 * "Hourly segmentation displays up to 7 days of data, and daily displays up to 365 days" (Dashboard REST,
 * `i`): Amplitude cuts a longer window short, so longer windows are refused here. Group-bys count days.
 */
const HOURLY_MAX_DAYS = 7
const DAILY_MAX_DAYS = 365

/** Time dimensions → the Dashboard REST interval `i`. */
const INTERVALS: Readonly<Record<string, string>> = { DATE: '1', WEEK: '7', MONTH: '30', HOUR: '-3600000' }
/** Property dimensions → built-in group-by properties (`g`). */
const GROUPS: Readonly<Record<string, string>> = {
  COUNTRY: 'country',
  CITY: 'city',
}

/**
 * Dimensions a built-in property seems to serve but does not mean. Amplitude's `os` is "`os_name` +
 * `os_version`", the mobile OS or the browser ("ios 9.1", "Chrome 46": amplitude/amplitude-docs@6e7e48e:
 * content/collections/get-started/en/user-property-definitions.md), so on the web it names browsers.
 */
const NOT_MEANT: Readonly<Record<string, string>> = {
  OS: "Amplitude's os property is the browser and its version on the web (os_name + os_version), not an operating system",
  // `device_type` is the device's model name ("Apple iPhone 12", "Mac", "Windows": the `device` and
  // `device_family` rows of user-property-definitions.md above), not desktop/mobile/tablet.
  DEVICE_TYPE:
    "Amplitude's device_type property names the device's model or family (Mac, Apple iPhone 12), not desktop, mobile or tablet",
}

interface MetricSource {
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  /** Whether the endpoint takes a group-by and answers range totals (`seriesCollapsed`). */
  readonly groups: boolean
  readonly intervals: readonly string[]
}

const ALL_INTERVALS = Object.keys(INTERVALS)

/** providers.md 12.2, Amplitude column. */
const SOURCES: Readonly<Record<string, MetricSource>> = {
  USERS: {
    path: '/api/2/events/segmentation',
    params: { e: JSON.stringify({ event_type: '_active' }), m: 'uniques' },
    groups: true,
    intervals: ALL_INTERVALS,
  },
  EVENTS: {
    path: '/api/2/events/segmentation',
    params: { e: JSON.stringify({ event_type: '_all' }), m: 'totals' },
    groups: true,
    intervals: ALL_INTERVALS,
  },
  PAGE_VIEWS: {
    path: '/api/2/events/segmentation',
    params: { e: JSON.stringify({ event_type: '[Amplitude] Page Viewed' }), m: 'totals' },
    groups: true,
    intervals: ALL_INTERVALS,
  },
  NEW_USERS: {
    path: '/api/2/users',
    params: { m: 'new' },
    groups: false,
    intervals: ['DATE', 'WEEK', 'MONTH'],
  },
  AVERAGE_SESSION_DURATION: {
    path: '/api/2/sessions/average',
    params: {},
    groups: false,
    intervals: ['DATE'],
  },
}

const ymd = (day: string) => day.replaceAll('-', '')

/**
 * Dashboard REST counts whole days of the project's time zone (the connection's `project_timezone`, since
 * Amplitude's API does not expose it): the window's days, and the instants they start and end there.
 */
function windowOf(
  q: ListQuery,
  zone: string,
  nowMs: number,
): { start: string; end: string; startDay: string; startMs: number; endMs: number } {
  const w = zonedDayWindow('Amplitude', q.filters, zone, nowMs)
  return {
    start: ymd(w.startDay),
    startDay: w.startDay,
    end: ymd(addDays(w.endDay, -1)),
    startMs: w.startAt.getTime(),
    endMs: w.endAt.getTime(),
  }
}

export interface AmplitudeMetric {
  value: number
  type: string
  dimension: string
  dimension_value: string
}

/**
 * `data.series[i][j]` is segment i at `xValues[j]`. Grouped answers are read from `seriesCollapsed`
 * (Amplitude's own range totals: unique users are not summable over days). An x value is a bucket's first
 * moment on the project's wall clock (`2024-05-01`, `2024-05-01T10:00`), labelled in the one form of time
 * labels (time-buckets.ts); a week or month Amplitude starts before the window's first day (`firstDay`)
 * counts from that day, which labels a week.
 */
export function fromAmplitudeSeries(
  answer: AmplitudeSegmentation,
  type: string,
  dimension: string,
  grouped: boolean,
  firstDay?: string,
): AmplitudeMetric[] {
  const data = answer?.data
  if (!data) return []
  if (grouped) {
    const labels = data.seriesLabels ?? data.seriesMeta ?? []
    return (data.seriesCollapsed ?? []).map((collapsed, i) => ({
      value: collapsed[0]?.value ?? 0,
      type,
      dimension,
      dimension_value: labelOf(labels[i], i),
    }))
  }
  const first = data.series[0] ?? []
  const label = (x: string) =>
    isTimeDimension(dimension) ? (timeBucketLabelOf(dimension, x, firstDay) ?? x) : x
  return data.xValues.map((x, j) => ({ value: first[j] ?? 0, type, dimension, dimension_value: label(x) }))
}

/** Labels come as strings, or `[index, "label"]` pairs in some answers. */
function labelOf(label: unknown, i: number): string {
  if (typeof label === 'string') return label
  if (Array.isArray(label) && typeof label[1] === 'string') return label[1]
  return String(i)
}

/**
 * What a report list asks Amplitude, from the query alone: its metrics, its dimension and the interval or
 * group that dimension is counted by; a 400 or 501 for what the Dashboard REST API cannot answer.
 */
function reportAsked(q: ListQuery) {
  const { types, dimension = 'DATE' } = reportParamsOf(q)
  const wanted = types ? [...types] : ['USERS', 'EVENTS']
  const interval = INTERVALS[dimension]
  const group = GROUPS[dimension]
  const notMeant = NOT_MEANT[dimension]
  if (notMeant)
    throw notImplemented(`Amplitude (amplitude) cannot break reports down by ${dimension}: ${notMeant}`)
  if (!interval && !group) {
    throw notImplemented(
      `Amplitude (amplitude) cannot break reports down by ${dimension}; it can by ${[...ALL_INTERVALS, ...Object.keys(GROUPS)].join(', ')}`,
    )
  }
  for (const type of wanted) {
    const source = SOURCES[type]
    if (!source) {
      throw notImplemented(
        `Amplitude (amplitude) cannot report ${type}; it can report ${Object.keys(SOURCES).join(', ')}`,
      )
    }
    if ((group && !source.groups) || (interval && !source.intervals.includes(dimension))) {
      throw notImplemented(`Amplitude (amplitude) cannot report ${type} by ${dimension}`)
    }
  }
  return { wanted, dimension, interval, group }
}

/**
 * What a report list asks (reportAsked) and its window of whole days of the project's zone (the connection's
 * settings) as of `nowMs`; a 400 for a window Amplitude would cut short.
 */
function reportWindowAsked(q: ListQuery, given: Pick<HandlerContext, 'settings'>, nowMs: number) {
  const asked = reportAsked(q)
  const { dimension, group } = asked
  const zone =
    given.settings.timezone && isTimeZone(given.settings.timezone) ? given.settings.timezone : 'UTC'
  const window = windowOf(q, zone, nowMs)
  const { startMs, endMs } = window
  // Counted in hours: seven days that hold an autumn clock change are 169 hours, one more than Amplitude's
  // 7 × 24 hourly buckets, and the hour Amplitude leaves out would go missing silently.
  if (dimension === 'HOUR' && endMs - startMs > HOURLY_MAX_DAYS * 24 * HOUR_MS) {
    throw badRequest(
      `Amplitude reports hours for at most ${HOURLY_MAX_DAYS} days (${HOURLY_MAX_DAYS * 24} hours); narrow start_gte/end_lt or use DATE`,
    )
  }
  if ((dimension === 'DATE' || group) && Math.round((endMs - startMs) / DAY_MS) > DAILY_MAX_DAYS) {
    throw badRequest(
      `Amplitude reports days for at most ${DAILY_MAX_DAYS} days; narrow start_gte/end_lt or use WEEK or MONTH`,
    )
  }
  return { ...asked, ...window }
}

async function listReports(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { wanted, dimension, interval, group, start, end, startDay, startMs, endMs } = reportWindowAsked(
    q,
    ctx,
    Date.now(),
  )
  const metrics: AmplitudeMetric[] = []
  const raw: Record<string, unknown> = {}
  for (const type of wanted) {
    const source = SOURCES[type] as MetricSource
    const answer = await ctx.client.json<AmplitudeSegmentation>({
      path: source.path,
      baseUrl: amplitudeHosts(ctx.credentials).analytics,
      query: {
        // The caller's first; the names below are refused (rawOwned), so none is replaced unsaid.
        ...ctx.rawParams,
        ...source.params,
        start,
        end,
        ...(group ? { g: group, i: '1', limit: String(GROUP_LIMIT) } : { i: interval }),
      },
    })
    if (group && (answer?.data?.seriesCollapsed?.length ?? 0) >= GROUP_LIMIT) {
      throw new ProviderError(
        502,
        `Amplitude answers at most ${GROUP_LIMIT} ${dimension} values per report and this window has more; narrow start_gte/end_lt`,
      )
    }
    const xValues = answer?.data?.xValues
    if (!group && Array.isArray(xValues)) {
      checkSeriesLength('Amplitude', xValues.length, dimension, Math.ceil((endMs - startMs) / DAY_MS))
    }
    raw[type] = answer
    // One push a metric: spread as arguments, a long series overflowed the stack.
    for (const m of fromAmplitudeSeries(answer, type, dimension, Boolean(group), startDay)) metrics.push(m)
  }
  const report: UnifiedRecord = {
    id: `amplitude:${wanted.join('+')}:${dimension}:${start}:${end}`,
    start_at: new Date(startMs),
    end_at: new Date(endMs),
    metrics,
    raw,
  }
  return [report].slice(q.offset, q.offset + q.limit)
}

/**
 * Dashboard REST answers whole days of the project's time zone: start_at and end_at are the instants the
 * window's first and last days start and end there; a time `dimension_value` is the bucket's first moment
 * there, in the one form of time labels (time-buckets.ts); another dimension's is Amplitude's own label.
 */
export const reportHandlers: ObjectHandlers = {
  // What Unigate sets on every Dashboard REST call and reads the answer by: a raw one would lose to it.
  rawOwned: {
    start: 'use start_gte and end_lt',
    end: 'use start_gte and end_lt',
    e: 'use type',
    m: 'use type',
    g: 'use dimension',
    i: 'use dimension',
    limit: 'Unigate asks for every value of a breakdown',
  },
  list: listReports,
  checkList: (q, nowMs, given) => void reportWindowAsked(q, given, nowMs),
  listParams: [],
  filters: ['type', 'dimension', 'start_gte', 'end_lt'],
}

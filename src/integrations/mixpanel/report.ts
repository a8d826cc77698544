import { type ApiError, badRequest, notImplemented, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { reportParamsOf } from '../report-params.js'
import { checkSeriesLength, isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { zonedDayWindow } from '../zoned-days.js'
import { addDays, dayIn, daysBetween } from '../zones.js'
import { mixpanelHosts } from './hosts.js'
import type { MixpanelSeries } from './provider-types.js'
import { zonesOf } from './time.js'

/** `/segmentation`'s most property values per answer (`limit`, default 60: docs.mixpanel.com/reference/segmentation-query). */
export const SEGMENTATION_MAX_LIMIT = 10_000

/**
 * `/events/names` lists "the most common events over the last 31 days", `limit` of them (default 255):
 * docs.mixpanel.com/reference/query-top-events (mixpanel/docs@ba22906:openapi/query.openapi.yaml). An
 * answer of EVENT_NAMES_LIMIT names may be cut short, so it is never taken for every event.
 */
export const EVENT_NAMES_LIMIT = 1000
const EVENT_NAMES_DAYS = 31
/** How many choices a 400 names before saying how many more there are. */
const NAMED_CHOICES = 20
/** The JSON `event` list of one `/events` request stays under this, keeping its address a modest size. */
const EVENT_LIST_CHARS = 4000

/** Time dimensions: `/events` series in that unit. */
const UNITS: Readonly<Record<string, string>> = { DATE: 'day', HOUR: 'hour', WEEK: 'week', MONTH: 'month' }

/** Property dimensions: `/segmentation` with `on=` (providers.md 12.3, Mixpanel column). */
const ON: Readonly<Record<string, string>> = {
  COUNTRY: 'mp_country_code',
  CITY: '$city',
  BROWSER: '$browser',
  OS: '$os',
  PAGE: '$current_url',
  SOURCE: 'utm_source',
  MEDIUM: 'utm_medium',
  CAMPAIGN: 'utm_campaign',
}

/** Unified metric → Mixpanel count type (`general` = all events, `unique` = distinct users). */
const COUNT_TYPES: Readonly<Record<string, 'general' | 'unique'>> = {
  EVENTS: 'general',
  PAGE_VIEWS: 'general',
  USERS: 'unique',
}

export const MIXPANEL_REPORT_DIMENSIONS = [...Object.keys(UNITS), ...Object.keys(ON)]

/**
 * Dimensions a default property seems to serve but does not mean. `$device` is the name of the device
 * ("iPhone", "Android"), and the web library sets it for mobile browsers only
 * (docs.mixpanel.com/docs/data-structure/property-reference/default-properties), not desktop/mobile/tablet.
 */
const NOT_MEANT: Readonly<Record<string, string>> = {
  DEVICE_TYPE:
    "Mixpanel's $device property names the device (iPhone, Android) and is left empty on desktop browsers; it is not desktop, mobile or tablet",
}

/**
 * The most days of the project's zone one report asks Mixpanel for, by the unit it is asked in (a property
 * breakdown is asked by day): Unigate's own bound. The Query API documents none for `/events` or
 * `/segmentation` (mixpanel/docs@ba22906:openapi/query.openapi.yaml gives only its rate limit, 60 queries an
 * hour and 5 at once), yet answers one value per event (or property value) per bucket of the window, so a
 * window of centuries by day was millions of buckets, stopped only at the answer cap after Mixpanel did the
 * work. 10,000 buckets per event keep one answer to a few hundred KB per event: 10,000 days (over 27 years)
 * by DATE, WEEK, MONTH or a property, 416 days (9,984 hours) by HOUR. No real report needs more: Mixpanel's
 * own app charts at most 12 months by day and 31 days by hour (docs/reports/insights.mdx, "Date Range
 * Guardrails"), which are its app's limits, not the Query API's, and so not Unigate's.
 */
export const MAX_WINDOW_DAYS: Readonly<Record<string, number>> = {
  hour: 416,
  day: 10_000,
  week: 10_000,
  month: 10_000,
}

/** Refuses a window longer than MAX_WINDOW_DAYS for the unit Mixpanel is asked in, before asking it. */
function checkWindowLength(dimension: string, unit: string, from: string, to: string): void {
  const max = MAX_WINDOW_DAYS[unit]
  const days = daysBetween(from, to) + 1
  if (max === undefined || days <= max) return
  throw badRequest(
    `start_gte/end_lt: a Mixpanel report by ${dimension} covers at most ${max} days, a bound of Unigate's own ` +
      `(Mixpanel documents none; it keeps one Query API answer small); ${from}..${to} holds ${days}: ` +
      `narrow start_gte..end_lt${unit === 'hour' ? ' or use a coarser dimension' : ''}`,
  )
}

/**
 * The window as days of the project's zone (Mixpanel's `from_date`/`to_date`, inclusive) and as the
 * instants those days start and end: a report covers exactly the instants of the days Mixpanel counted.
 */
function windowOf(
  q: ListQuery,
  zone: string,
  nowMs: number,
): { from: string; to: string; startAt: Date; endAt: Date } {
  const w = zonedDayWindow('Mixpanel', q.filters, zone, nowMs)
  return { from: w.startDay, to: addDays(w.endDay, -1), startAt: w.startAt, endAt: w.endAt }
}

/**
 * Sums a `{data:{values}}` answer per key: per date for one event, or per property value over dates. A
 * date key is Mixpanel's label of a bucket on the project's wall clock (`2024-05-01`, `2024-05-01 10:00:00`,
 * a week's Monday, a month's first day), labelled in the one form of time labels (time-buckets.ts); a week
 * begun before the window's first day (`firstDay`) is counted from that day, which labels it.
 */
export function fromMixpanelSeries(
  answer: MixpanelSeries,
  type: string,
  dimension: string,
  byProperty: boolean,
  firstDay?: string,
): Array<{ value: number; type: string; dimension: string; dimension_value: string }> {
  const values = answer?.data?.values ?? {}
  if (byProperty) {
    return Object.entries(values).map(([key, perDate]) => ({
      value: Object.values(perDate).reduce((a, b) => a + b, 0),
      type,
      dimension,
      dimension_value: key,
    }))
  }
  const totals = new Map<string, number>()
  for (const perDate of Object.values(values)) {
    for (const [date, n] of Object.entries(perDate)) totals.set(date, (totals.get(date) ?? 0) + n)
  }
  const label = (date: string) =>
    isTimeDimension(dimension) ? (timeBucketLabelOf(dimension, date, firstDay) ?? date) : date
  return (answer?.data?.series ?? []).map((date) => ({
    value: totals.get(date) ?? 0,
    type,
    dimension,
    dimension_value: label(date),
  }))
}

/** The answer, once its series is held to the window `from..to` (checkSeriesLength). */
function checkSeries(answer: MixpanelSeries, dimension: string, from: string, to: string): MixpanelSeries {
  const series = answer?.data?.series
  if (Array.isArray(series))
    checkSeriesLength('Mixpanel', series.length, dimension, daysBetween(from, to) + 1)
  return answer
}

/** The project's top event names (`/events/names`), at most EVENT_NAMES_LIMIT. */
async function eventNames(ctx: HandlerContext): Promise<string[]> {
  const names = await ctx.client.json<unknown>({
    path: '/api/query/events/names',
    baseUrl: mixpanelHosts(ctx.credentials).query,
    query: { project_id: ctx.credentials.project_id, type: 'general', limit: EVENT_NAMES_LIMIT },
  })
  if (!Array.isArray(names)) throw new TypeError('/events/names answered no list')
  return names.filter((n): n is string => typeof n === 'string')
}

/** The 400 for a report that needs an event named: why, and the event names to choose from. */
function eventRequired(why: string, names: readonly string[] | undefined): ApiError {
  const named = names?.slice(0, NAMED_CHOICES).map((n) => `'${n}'`)
  const more = names && names.length > NAMED_CHOICES ? ` and ${names.length - NAMED_CHOICES} more` : ''
  const choices =
    names === undefined
      ? 'for example query=Signed%20up'
      : names.length === 0
        ? 'Mixpanel names no event of the last 31 days'
        : `choose one of ${named?.join(', ')}${more}`
  return badRequest(`query is required: ${why}; name the Mixpanel event to count, ${choices}`)
}

/** Splits event names into `/events` requests whose JSON `event` list stays under EVENT_LIST_CHARS. */
function batchesOf(names: readonly string[]): string[][] {
  const batches: string[][] = []
  let batch: string[] = []
  let chars = 2 // the brackets of the JSON list
  for (const name of names) {
    const size = JSON.stringify(name).length + 1 // the name and its comma
    if (batch.length > 0 && chars + size > EVENT_LIST_CHARS) {
      batches.push(batch)
      batch = []
      chars = 2
    }
    batch.push(name)
    chars += size
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}

/** Several `/events` answers of the same window and unit as one: their series and every event's values. */
function mergedSeries(answers: readonly MixpanelSeries[]): MixpanelSeries {
  const values: Record<string, Readonly<Record<string, number>>> = {}
  for (const a of answers) Object.assign(values, a?.data?.values ?? {})
  return { data: { series: answers[0]?.data?.series ?? [], values } }
}

/**
 * What a report list asks Mixpanel, from the query alone: its metrics, its dimension and the unit or property
 * that dimension is counted by; a 400 or 501 for what Mixpanel's Query API cannot answer.
 */
function reportAsked(q: ListQuery) {
  const params = reportParamsOf(q)
  const types = params.types ? [...params.types] : ['EVENTS']
  const dimension = params.dimension ?? 'DATE'
  const unit = UNITS[dimension]
  const on = ON[dimension]
  const notMeant = NOT_MEANT[dimension]
  if (notMeant)
    throw notImplemented(`Mixpanel (mixpanel) cannot break reports down by ${dimension}: ${notMeant}`)
  if (!unit && !on) {
    throw notImplemented(
      `Mixpanel (mixpanel) cannot break reports down by ${dimension}; it can by ${MIXPANEL_REPORT_DIMENSIONS.join(', ')}`,
    )
  }
  for (const type of types) {
    const countType = COUNT_TYPES[type]
    if (!countType) {
      throw notImplemented(
        `Mixpanel (mixpanel) cannot report ${type}; it can report ${Object.keys(COUNT_TYPES).join(', ')}`,
      )
    }
    // Mixpanel has no unique counts by hour ("Note that you cannot get hourly uniques":
    // docs.mixpanel.com/reference/query-events, `unit`).
    if (unit === 'hour' && countType === 'unique') {
      throw notImplemented('Mixpanel (mixpanel) cannot count unique USERS by HOUR; use DATE, WEEK or MONTH')
    }
    if (on && countType === 'unique') {
      throw notImplemented(
        `Mixpanel (mixpanel) cannot count unique USERS by ${dimension} over a window; use a time dimension`,
      )
    }
  }
  return { types, dimension, unit, on }
}

/**
 * What a report of the connection's project asks (reportAsked) and its window of days of the project's zone
 * as of `nowMs`, or undefined when it reports nothing: a property_id that is another project (whose events
 * this connection cannot count).
 */
function projectReportAsked(
  q: ListQuery,
  given: Pick<HandlerContext, 'credentials' | 'settings'>,
  nowMs: number,
) {
  const property = q.filters.property_id
  if (typeof property === 'string' && property !== given.credentials.project_id) return undefined
  const asked = reportAsked(q)
  const zone = zonesOf(given).report
  const window = windowOf(q, zone, nowMs)
  checkWindowLength(asked.dimension, asked.on ? 'day' : (asked.unit as string), window.from, window.to)
  return { ...asked, ...window, zone }
}

/**
 * Counts of one event (`query` = the Mixpanel event name; page views need none) over whole days of the
 * project's time zone, by a time unit (`/events`) or by a property (`/segmentation`, summed over the
 * window). Unique users cannot be summed over days, so USERS is only offered by DATE, WEEK and MONTH.
 * Without `query`, EVENTS by a time unit counts every event: the Query API has no "any event", so the
 * names `/events/names` gives (the project's events of the last 31 days) are counted together, which is
 * exact for a window inside those 31 days. Anything else without `query` (USERS: distinct users cannot be
 * added across events; a property breakdown: one event per query; an older window; a capped name list)
 * is a 400 naming `query` and the event names to choose from.
 * A time `dimension_value` is the bucket's first moment on the project zone's wall clock, in the one form
 * of time labels; start_at/end_at are the instants the window's first and last days start and end there.
 */
async function listReports(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const projectId = ctx.credentials.project_id as string
  const asked = projectReportAsked(q, ctx, Date.now())
  if (!asked) return []
  const { types, dimension, unit, on, zone, from, to, startAt, endAt } = asked
  // Every event, when no event is named: the names Mixpanel gives, or why they cannot stand for every event.
  let allEvents: string[] | undefined
  if (!q.query && types.some((t) => t !== 'PAGE_VIEWS')) {
    const why = types.includes('USERS')
      ? 'Mixpanel counts distinct users of one event at a time, and they cannot be added up across events'
      : on
        ? `Mixpanel breaks one event at a time down by ${dimension}`
        : from < addDays(dayIn(Date.now(), zone), 1 - EVENT_NAMES_DAYS)
          ? `Mixpanel names a project's events for the last ${EVENT_NAMES_DAYS} days only, and this window starts before them`
          : undefined
    if (why) {
      // The name list failing must not hide the caller's real problem: the missing event name.
      throw eventRequired(why, await eventNames(ctx).catch(() => undefined))
    }
    allEvents = await eventNames(ctx)
    if (allEvents.length >= EVENT_NAMES_LIMIT) {
      throw eventRequired(
        `Mixpanel names ${EVENT_NAMES_LIMIT} or more events for this project, more than one report adds up`,
        allEvents,
      )
    }
  }
  const metrics: ReturnType<typeof fromMixpanelSeries> = []
  const raw: Record<string, unknown> = {}
  // One Query API call per metric (per batch of names for every event): each counts events one way.
  for (const type of types) {
    const common = {
      ...ctx.rawParams,
      project_id: projectId,
      from_date: from,
      to_date: to,
      type: COUNT_TYPES[type],
    }
    if (type !== 'PAGE_VIEWS' && allEvents) {
      // No event in the last 31 days: nothing to count, and `/events` needs at least one name.
      const answers: MixpanelSeries[] = []
      for (const batch of batchesOf(allEvents)) {
        const answer = await ctx.client.json<MixpanelSeries>({
          path: '/api/query/events',
          baseUrl: mixpanelHosts(ctx.credentials).query,
          query: { ...common, event: JSON.stringify(batch), unit },
        })
        answers.push(checkSeries(answer, dimension, from, to))
      }
      const answer = mergedSeries(answers)
      raw[type] = { ...answer, event: allEvents }
      // One push a metric: spread as arguments, a long series overflowed the stack.
      if (answers.length > 0)
        for (const m of fromMixpanelSeries(answer, type, dimension, false, from)) metrics.push(m)
      continue
    }
    const event = type === 'PAGE_VIEWS' ? '$mp_web_page_view' : (q.query as string)
    const answer = await ctx.client.json<MixpanelSeries>(
      on
        ? {
            path: '/api/query/segmentation',
            baseUrl: mixpanelHosts(ctx.credentials).query,
            query: {
              ...common,
              event,
              on: `properties["${on}"]`,
              unit: 'day',
              limit: SEGMENTATION_MAX_LIMIT,
            },
          }
        : {
            path: '/api/query/events',
            baseUrl: mixpanelHosts(ctx.credentials).query,
            query: { ...common, event: JSON.stringify([event]), unit },
          },
    )
    if (on && Object.keys(answer?.data?.values ?? {}).length >= SEGMENTATION_MAX_LIMIT) {
      throw new ProviderError(
        502,
        `Mixpanel answers at most ${SEGMENTATION_MAX_LIMIT} ${dimension} values per report and this window has more; narrow start_gte/end_lt`,
      )
    }
    if (!on) checkSeries(answer, dimension, from, to)
    raw[type] = { ...answer, event }
    for (const m of fromMixpanelSeries(answer, type, dimension, Boolean(on), from)) metrics.push(m)
  }
  const report: UnifiedRecord = {
    id: `${projectId}:${types.join('+')}:${q.query ?? ''}:${dimension}:${from}:${to}`,
    property_id: projectId,
    start_at: startAt,
    end_at: endAt,
    metrics,
    raw,
  }
  return [report].slice(q.offset, q.offset + q.limit)
}

export const reportHandlers: ObjectHandlers = {
  list: listReports,
  checkList: (q, nowMs, given) => void projectReportAsked(q, given, nowMs),
  listParams: ['query'],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
}

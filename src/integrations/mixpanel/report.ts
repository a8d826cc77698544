import { badRequest, notImplemented, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { reportParamsOf } from '../report-params.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { zonedDayWindow } from '../zoned-days.js'
import { addDays } from '../zones.js'
import { mixpanelHosts } from './hosts.js'
import type { MixpanelSeries } from './provider-types.js'
import { zonesOf } from './time.js'

/** `/segmentation`'s most property values per answer (`limit`, default 60: docs.mixpanel.com/reference/segmentation-query). */
export const SEGMENTATION_MAX_LIMIT = 10_000

/** Time dimensions: `/events` series in that unit. */
const UNITS: Readonly<Record<string, string>> = { DATE: 'day', HOUR: 'hour', WEEK: 'week', MONTH: 'month' }

/** Property dimensions: `/segmentation` with `on=` (providers.md 12.3, Mixpanel column). */
const ON: Readonly<Record<string, string>> = {
  COUNTRY: 'mp_country_code',
  CITY: '$city',
  BROWSER: '$browser',
  OS: '$os',
  DEVICE_TYPE: '$device',
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
 * The window as days of the project's zone (Mixpanel's `from_date`/`to_date`, inclusive) and as the
 * instants those days start and end: a report covers exactly the instants of the days Mixpanel counted.
 */
function windowOf(q: ListQuery, zone: string): { from: string; to: string; startAt: Date; endAt: Date } {
  const w = zonedDayWindow('Mixpanel', q.filters, zone)
  return { from: w.startDay, to: addDays(w.endDay, -1), startAt: w.startAt, endAt: w.endAt }
}

/** Sums a `{data:{values}}` answer per key: per date for one event, or per property value over dates. */
export function fromMixpanelSeries(
  answer: MixpanelSeries,
  type: string,
  dimension: string,
  byProperty: boolean,
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
  return (answer?.data?.series ?? []).map((date) => ({
    value: totals.get(date) ?? 0,
    type,
    dimension,
    dimension_value: date,
  }))
}

/**
 * Counts of one event (`query` = the Mixpanel event name; page views need none) over whole days of the
 * project's time zone, by a time unit (`/events`) or by a property (`/segmentation`, summed over the
 * window). Unique users cannot be summed over days, so USERS is only offered by DATE, WEEK and MONTH.
 * `dimension_value` is Mixpanel's own label (a day of the project zone); start_at/end_at are the instants
 * the window's first and last days start and end in that zone.
 */
async function listReports(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const projectId = ctx.credentials.project_id as string
  const property = q.filters.property_id
  if (typeof property === 'string' && property !== projectId) return []
  const params = reportParamsOf(q)
  const types = params.types ? [...params.types] : ['EVENTS']
  const dimension = params.dimension ?? 'DATE'
  const unit = UNITS[dimension]
  const on = ON[dimension]
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
    if (type !== 'PAGE_VIEWS' && !q.query) {
      throw badRequest('query: name the Mixpanel event to count (for example query=Signed%20up)')
    }
  }
  const { from, to, startAt, endAt } = windowOf(q, zonesOf(ctx).report)
  const metrics: ReturnType<typeof fromMixpanelSeries> = []
  const raw: Record<string, unknown> = {}
  // One Query API call per metric: each counts one event in one way.
  for (const type of types) {
    const event = type === 'PAGE_VIEWS' ? '$mp_web_page_view' : (q.query as string)
    const common = {
      ...ctx.rawParams,
      project_id: projectId,
      from_date: from,
      to_date: to,
      type: COUNT_TYPES[type],
    }
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
    raw[type] = { ...answer, event }
    metrics.push(...fromMixpanelSeries(answer, type, dimension, Boolean(on)))
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
  listParams: ['query'],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
}

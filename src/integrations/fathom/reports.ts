import { badRequest, notImplemented } from '../../errors.js'
import { reportParamsOf } from '../report-params.js'
import type { ObjectHandlers } from '../types.js'
import {
  DATE_GROUPING,
  EVENT_AGGREGATES,
  FIELD_GROUPING,
  formatFathomTime,
  fromFathomRow,
  PAGEVIEW_AGGREGATES,
} from './mappers.js'
import type { FathomRow } from './types.js'

const DAY_MS = 86_400_000
const DEFAULT_DAYS = 30

function supported(): string {
  return [...Object.keys(PAGEVIEW_AGGREGATES), ...Object.keys(EVENT_AGGREGATES)].join(', ')
}

/** Pageview aggregates by default; event aggregates (conversions, value) need the event's name. */
function aggregatesOf(types: ReadonlySet<string> | undefined, eventName: string | undefined) {
  const asked = types ? [...types] : Object.keys(PAGEVIEW_AGGREGATES)
  const unknown = asked.filter((t) => !PAGEVIEW_AGGREGATES[t] && !EVENT_AGGREGATES[t])
  if (unknown.length > 0) {
    throw notImplemented(
      `Fathom (fathom) has no aggregate for ${unknown.join(', ')}; it reports ${supported()}`,
    )
  }
  const events = asked.filter((t) => EVENT_AGGREGATES[t])
  if (events.length === 0)
    return { entity: 'pageview', aggregates: asked.map((t) => PAGEVIEW_AGGREGATES[t] as string) }
  if (events.length < asked.length) {
    throw badRequest('Fathom reports pageview and event aggregates separately: ask for one kind per request')
  }
  if (!eventName) {
    throw badRequest('Fathom reports CONVERSIONS and REVENUE per event: add raw=entity_name%3D<event name>')
  }
  return { entity: 'event', aggregates: events.map((t) => EVENT_AGGREGATES[t] as string) }
}

export const reportHandlers: ObjectHandlers = {
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],

  async list(ctx, q) {
    const site = q.filters.property_id
    if (typeof site !== 'string')
      throw badRequest('Fathom reports are per site: give property_id (the site id)')
    const { types, dimension } = reportParamsOf(q)
    const dateGrouping = dimension ? DATE_GROUPING[dimension] : undefined
    const fieldGrouping = dimension ? FIELD_GROUPING[dimension] : undefined
    if (dimension && !dateGrouping && !fieldGrouping) {
      throw notImplemented(
        `Fathom (fathom) cannot break reports down by ${dimension}; it can by ` +
          `${[...Object.keys(DATE_GROUPING), ...Object.keys(FIELD_GROUPING)].join(', ')}`,
      )
    }
    const { entity_name: eventName, ...extra } = ctx.rawParams
    const { entity, aggregates } = aggregatesOf(types, eventName)
    const end = q.filters.end_lt instanceof Date ? q.filters.end_lt.getTime() : Date.now()
    const start =
      q.filters.start_gte instanceof Date ? q.filters.start_gte.getTime() : end - DEFAULT_DAYS * DAY_MS
    if (start >= end) throw badRequest('start_gte must be before end_lt')
    const res = await ctx.client.json<FathomRow[] | { data: FathomRow[] }>({
      path: '/aggregations',
      query: {
        entity,
        ...(entity === 'pageview' ? { entity_id: site } : { site_id: site, entity_name: eventName }),
        aggregates: aggregates.join(','),
        date_grouping: dateGrouping,
        field_grouping: fieldGrouping,
        sort_by: dateGrouping ? 'timestamp:asc' : `${aggregates[0]}:desc`,
        // Times are sent and grouped in UTC, the unified timezone; date_to is inclusive to the second.
        timezone: 'UTC',
        date_from: formatFathomTime(start),
        date_to: formatFathomTime(end - 1000),
        // Fathom has a limit but no offset: ask for offset + limit rows and cut the window here.
        limit: q.offset + q.limit,
        ...extra,
      },
    })
    const rows = Array.isArray(res) ? res : res.data
    const dim = dimension
      ? { unified: dimension, key: dateGrouping ? 'date' : (fieldGrouping as string) }
      : undefined
    return rows
      .slice(q.offset, q.offset + q.limit)
      .map((row) => fromFathomRow(row, aggregates, site, new Date(start), new Date(end), dim))
  },
}

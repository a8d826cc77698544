import { ApiError, badRequest, notImplemented } from '../../errors.js'
import { rawThenOwn } from '../raw-lists.js'
import { reportParamsOf } from '../report-params.js'
import type { ListCheckContext, ListQuery, ObjectHandlers } from '../types.js'
import {
  DATE_GROUPING,
  EVENT_AGGREGATES,
  FIELD_GROUPING,
  formatFathomTime,
  fromFathomRow,
  PAGEVIEW_AGGREGATES,
} from './mappers.js'
import type { FathomList, FathomRow } from './types.js'

const DAY_MS = 86_400_000
const DEFAULT_DAYS = 30
const MAX_HOUR_PIECES = 10

function supported(): string {
  return [...Object.keys(PAGEVIEW_AGGREGATES), ...Object.keys(EVENT_AGGREGATES)].join(', ')
}

/** The metrics asked, and those of them that are event aggregates: all or none, each one Fathom has. */
function aggregatesAsked(types: ReadonlySet<string> | undefined) {
  const asked = types ? [...types] : Object.keys(PAGEVIEW_AGGREGATES)
  const unknown = asked.filter((t) => !PAGEVIEW_AGGREGATES[t] && !EVENT_AGGREGATES[t])
  if (unknown.length > 0) {
    throw notImplemented(
      `Fathom (fathom) has no aggregate for ${unknown.join(', ')}; it reports ${supported()}`,
    )
  }
  const events = asked.filter((t) => EVENT_AGGREGATES[t])
  if (events.length > 0 && events.length < asked.length) {
    throw badRequest('Fathom reports pageview and event aggregates separately: ask for one kind per request')
  }
  return { asked, events }
}

/** Pageview aggregates by default; event aggregates (conversions, value) need the event's name. */
function aggregatesOf(types: ReadonlySet<string> | undefined, eventName: string | undefined) {
  const { asked, events } = aggregatesAsked(types)
  if (events.length === 0)
    return { entity: 'pageview', aggregates: asked.map((t) => PAGEVIEW_AGGREGATES[t] as string) }
  if (!eventName) {
    throw badRequest(
      'Fathom reports CONVERSIONS and REVENUE per event: add raw=entity_name%3D<event name> to the list (a webhook carries no raw parameters: it can watch pageview aggregates only)',
    )
  }
  return { entity: 'event', aggregates: events.map((t) => EVENT_AGGREGATES[t] as string) }
}

const RANGE = 'use start_gte and end_lt'
const PAGING = 'Unigate pages with limit and offset'

/** The site, metrics and dimension a report list asks, or what Fathom cannot be asked (400, 501). */
function reportAsked(q: ListQuery) {
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
  return { site, types, dimension, dateGrouping, fieldGrouping }
}

/** What one /aggregations call of a report list asks, from the query and its raw parameters (400, 501). */
function aggregationAsked(q: ListQuery, rawParams: ListCheckContext['rawParams']) {
  const asked = reportAsked(q)
  return { ...asked, ...aggregatesOf(asked.types, rawParams.entity_name) }
}

export const reportHandlers: ObjectHandlers = {
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // What Unigate sets on every /aggregations call and reads the answer by: a raw one would replace it
  // without a word (a raw timezone relabelling every bucket read as UTC, a raw date_from another range).
  rawOwned: {
    entity: 'use type (event aggregates need raw entity_name)',
    entity_id: 'use property_id',
    site_id: 'use property_id',
    aggregates: 'use type',
    date_grouping: 'use dimension',
    field_grouping: 'use dimension',
    sort_by: 'Unigate orders the rows it pages with limit and offset',
    timezone: 'Unigate reads the rows in UTC',
    date_from: RANGE,
    date_to: RANGE,
    limit: PAGING,
  },

  // The event an event aggregate is of is a raw parameter (entity_name), which a webhook cannot carry.
  checkList: (q, _nowMs, given) => void aggregationAsked(q, given.rawParams),

  async list(ctx, q) {
    const { site, dimension, dateGrouping, fieldGrouping, entity, aggregates } = aggregationAsked(
      q,
      ctx.rawParams,
    )
    const { entity_name: eventName, ...extra } = ctx.rawParams
    const end = q.filters.end_lt instanceof Date ? q.filters.end_lt.getTime() : Date.now()
    const start =
      q.filters.start_gte instanceof Date ? q.filters.start_gte.getTime() : end - DEFAULT_DAYS * DAY_MS
    if (start >= end) throw badRequest('start_gte must be before end_lt')
    const pieces = dateGrouping === 'hour' ? hourPieces(start, end) : [{ from: start, to: end }]
    const rows: FathomRow[] = []
    for (const piece of pieces) {
      const res = await ctx.client.json<FathomRow[] | FathomList<FathomRow>>({
        path: '/aggregations',
        query: rawThenOwn(extra, {
          entity,
          ...(entity === 'pageview' ? { entity_id: site } : { site_id: site, entity_name: eventName }),
          aggregates: aggregates.join(','),
          date_grouping: dateGrouping,
          field_grouping: fieldGrouping,
          sort_by: dateGrouping ? 'timestamp:asc' : `${aggregates[0]}:desc`,
          // Times are sent and grouped in UTC, the unified timezone; date_to is inclusive to the second.
          timezone: 'UTC',
          date_from: formatFathomTime(piece.from),
          date_to: formatFathomTime(piece.to - 1000),
          // Fathom has a limit but no offset: ask for offset + limit rows and cut the window here.
          limit: q.offset + q.limit,
        }),
      })
      // Current servers wrap rows in a list object; older ones answered a bare array. Anything else is
      // unreadable (502), never spread into rows (a string would become one row per character).
      const got: unknown = Array.isArray(res) ? res : res?.data
      if (!Array.isArray(got)) throw new TypeError('Fathom /aggregations answered no list of rows')
      // Fathom documents no cap on `limit` (https://usefathom.com/api/v1/reports); a server that cuts the
      // rows short says so in has_more, and a short page must not pass for the whole answer.
      const asked = q.offset + q.limit
      if (!Array.isArray(res) && res?.has_more === true && got.length < asked) {
        throw new ApiError(
          502,
          `Fathom answered ${got.length} of the ${asked} aggregation rows asked for and says there are more: ` +
            'it capped the rows; ask for a smaller limit or offset',
        )
      }
      rows.push(...(got as FathomRow[]))
      if (rows.length >= q.offset + q.limit) break
    }
    const dim = dimension
      ? { unified: dimension, key: dateGrouping ? 'date' : (fieldGrouping as string), grouping: dateGrouping }
      : undefined
    return rows
      .slice(q.offset, q.offset + q.limit)
      .map((row) => fromFathomRow(row, aggregates, site, new Date(start), new Date(end), dim))
  },
}

/**
 * Fathom refuses an hourly grouping over more than 7 days (https://usefathom.com/api/v1/errors), so a
 * longer range is asked for in 7-day pieces; aggregations allow 10 calls a minute, so at most
 * MAX_HOUR_PIECES pieces (10 weeks) are read, and a longer hourly range is refused.
 */
function hourPieces(start: number, end: number): { from: number; to: number }[] {
  // Counted before any is built: a range of centuries would otherwise build hundreds of thousands first.
  if (Math.ceil((end - start) / (7 * DAY_MS)) > MAX_HOUR_PIECES) {
    throw badRequest(
      `Fathom groups by hour over at most 7 days per call and allows 10 aggregation calls a minute; ` +
        `HOUR over more than ${MAX_HOUR_PIECES * 7} days is refused: shorten start_gte..end_lt or use DATE`,
    )
  }
  const pieces: { from: number; to: number }[] = []
  for (let from = start; from < end; from += 7 * DAY_MS)
    pieces.push({ from, to: Math.min(end, from + 7 * DAY_MS) })
  return pieces
}

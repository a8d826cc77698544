import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { withGoogleQuota } from '../google/errors.js'
import { requestedDays, resolveDays } from '../google/report-days.js'
import { reportParamsOf } from '../report-params.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { addDays, dayIn, utcMs } from '../zones.js'
import { youtubeAnalyticsBase } from './hosts.js'
import { CHANNEL_ID, YOUTUBE_REPORT_TIME_ZONE } from './mappers.js'
import type { YoutubeResultTable } from './provider-types.js'
import {
  fromYoutubeReportRows,
  toYoutubeDimension,
  toYoutubeMetrics,
  YOUTUBE_TOP_N,
  youtubeSort,
} from './report-mappers.js'

/** The largest page asked for outside top-N reports (the unified limit is at most 1000 anyway). */
const MAX_PAGE = 1000

/**
 * Month reports need whole months (YouTube refuses others). Given dates must already be whole months;
 * without dates the last 12 whole months are reported.
 */
function monthRange(days: { startDate?: string; endDate?: string }, today: string) {
  if (days.startDate || days.endDate) {
    const start = days.startDate ?? ''
    const end = days.endDate ?? ''
    if (!start.endsWith('-01') || !addDays(end, 1).endsWith('-01')) {
      throw badRequest(
        'dimension MONTH: YouTube reports whole months only; give start_gte and end_lt as first days of months',
      )
    }
    return { startDate: start, endDate: end }
  }
  const thisMonth = `${today.slice(0, 7)}-01`
  const [y, m] = thisMonth.split('-').map(Number) as [number, number]
  const startDate = new Date(utcMs(y, m - 13, 1)).toISOString().slice(0, 10)
  return { startDate, endDate: addDays(thisMonth, -1) }
}

/**
 * Which channel the report is about: `property_id`, or the connection's own channel. A content owner
 * reports on any channel it manages (`ids=contentOwner==…` with a channel filter).
 */
function target(ctx: HandlerContext, propertyId: string | undefined) {
  const owner = ctx.credentials.content_owner_id
  const channel = propertyId ?? ctx.settings.channel_id
  if (owner) {
    if (!channel)
      throw badRequest('property_id is required: this connection reports for a content owner’s channels')
    return { ids: `contentOwner==${owner}`, filters: `channel==${channel}`, channel }
  }
  return { ids: channel ? `channel==${channel}` : 'channel==MINE', channel: channel ?? 'MINE' }
}

/**
 * reports.query over whole Pacific-Time days. `offset`/`limit` map onto the 1-based `startIndex` and
 * `maxResults`; top-N reports (videos, cities) cap `maxResults`, so a larger page takes several calls.
 */
/**
 * What a report list asks YouTube, from the query alone (`nowMs` is today's date in Pacific Time): the
 * dimension, metrics, channel filter and days; a 400 naming what YouTube Analytics would refuse.
 */
function reportAsked(query: ListQuery, nowMs: number) {
  const params = reportParamsOf(query)
  const dimension = toYoutubeDimension(params.dimension)
  const metrics = toYoutubeMetrics(params.types, params.dimension)
  const filter = query.filters.property_id
  const propertyId = typeof filter === 'string' ? filter : undefined
  if (propertyId !== undefined && !CHANNEL_ID.test(propertyId)) {
    throw badRequest(
      `property_id: '${propertyId}' is not a YouTube channel id (UC followed by 22 characters)`,
    )
  }
  const today = dayIn(nowMs, YOUTUBE_REPORT_TIME_ZONE)
  const asked = requestedDays(query, 'YouTube', 'Pacific Time')
  const range = params.dimension === 'MONTH' ? monthRange(asked, today) : resolveDays(asked, today)
  return { params, dimension, metrics, propertyId, range }
}

async function listReports(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const { params, dimension, metrics, propertyId, range } = reportAsked(query, Date.now())
  // Whose channel needs the connection (a content owner's must be named): after the query's own rules.
  const { channel, ...ids } = target(ctx, propertyId)
  const sort = youtubeSort(dimension, metrics[0]?.name ?? 'views')
  const cap = YOUTUBE_TOP_N[params.dimension ?? ''] ?? MAX_PAGE
  const rows: (readonly (string | number)[])[] = []
  let table: YoutubeResultTable = {}
  while (rows.length < query.limit) {
    const want = Math.min(cap, query.limit - rows.length)
    table = await withGoogleQuota(() =>
      ctx.client.json<YoutubeResultTable>({
        baseUrl: youtubeAnalyticsBase(ctx.credentials),
        path: '/v2/reports',
        query: {
          ...ctx.rawParams,
          ...ids,
          startDate: range.startDate,
          endDate: range.endDate,
          metrics: metrics.map((m) => m.name).join(','),
          dimensions: dimension,
          sort,
          maxResults: want,
          startIndex: query.offset + rows.length + 1,
        },
      }),
    )
    const got = table.rows ?? []
    rows.push(...got)
    if (got.length < want) break
  }
  return fromYoutubeReportRows(
    { ...table, rows },
    {
      propertyId: channel,
      ...range,
      ...(params.dimension ? { dimension: params.dimension } : {}),
      types: metrics.map((m) => m.type),
    },
  )
}

export const youtubeReports: ObjectHandlers = {
  list: listReports,
  checkList: (q, nowMs) => void reportAsked(q, nowMs),
  listParams: [],
  filters: ['property_id', 'type', 'dimension', 'start_gte', 'end_lt'],
  // What Unigate sets on every reports.query call, after the raw parameters: a raw one would be replaced
  // unsaid. `filters` is not among them: an own channel's report takes a raw one, while a content owner's
  // sets its own (the channel) in its place.
  rawOwned: {
    ids: 'use property_id',
    startDate: 'use start_gte and end_lt',
    endDate: 'use start_gte and end_lt',
    metrics: 'use type',
    dimensions: 'use dimension',
    sort: 'Unigate orders the rows it pages with limit and offset',
    maxResults: 'Unigate pages with limit and offset',
    startIndex: 'Unigate pages with limit and offset',
  },
}

import type { FastifyInstance } from 'fastify'
import { offsetAt, utc } from '../../kit/zones.js'
import { requireSite } from '../auth.js'
import { DATE_GROUPINGS, EVENT_AGGREGATES, FIELD_GROUPINGS, PAGEVIEW_AGGREGATES } from '../constants.js'
import { FathomHttpError, invalid, notFound } from '../errors.js'
import type { Conversion, FathomState, Hit } from '../state.js'

type Query = Record<string, string | undefined>

/**
 * `date_from`/`date_to`: `Y-m-d H:i:s` or `Y-m-d`, read in `timezone` (default UTC); a bare date_to
 * covers its whole day (https://usefathom.com/api/v1/reports).
 */
const TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/

function parseTime(
  name: string,
  value: string | undefined,
  tz: string,
  endOfDay: boolean,
): number | undefined {
  if (value === undefined) return undefined
  const m = TIME.exec(value)
  if (!m) throw invalid(`The ${name.replace('_', ' ')} does not match the format Y-m-d H:i:s.`)
  const [, y, mo, d, h, mi, s] = m
  const wall = utc(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h ?? (endOfDay ? 23 : 0)),
    Number(mi ?? (endOfDay ? 59 : 0)),
    Number(s ?? (endOfDay ? 59 : 0)),
  )
  return wall - offsetAt(wall, tz)
}

/** Fathom's date labels per grouping, in the requested timezone. */
function dateLabel(ms: number, grouping: string, tz: string): string {
  const local = new Date(ms + offsetAt(ms, tz)).toISOString()
  switch (grouping) {
    case 'hour':
      return `${local.slice(0, 13).replace('T', ' ')}:00:00`
    case 'month':
      return local.slice(0, 7)
    case 'year':
      return local.slice(0, 4)
    default:
      return local.slice(0, 10)
  }
}

function list(q: Query, name: string, allowed: readonly string[], required: boolean): string[] {
  const text = q[name]
  if (!text) {
    if (required) throw invalid(`The ${name} field is required.`)
    return []
  }
  const items = text.split(',').map((s) => s.trim())
  const bad = items.filter((i) => !allowed.includes(i))
  if (bad.length > 0) throw invalid(`The selected ${name} is invalid: ${bad.join(', ')}.`)
  return items
}

type Row = Record<string, string | number>

/**
 * Row values as live Fathom answers give them: counts as strings, `avg_duration` a string with four
 * decimals, `bounce_rate` a number, the unrounded fraction of visits that bounced (`"visits": "99"` with
 * `"bounce_rate": 0.2828282828282828`, `"avg_duration": "55.5731"`: answers recorded in
 * spences10/scottspence.com@1a691ff1, posts/2023/02/21/adding-real-time-analytics-to-my-sveltekit-site-
 * with-fathom/index.md). Fathom's own pages name the aggregates only
 * (https://usefathom.com/api/v1/reports); their example's `"pageviews": 30000`
 * (https://usefathom.com/docs/api-reference/reports/aggregation) is a number, so counts may come either way.
 */
function pageviewRow(hits: readonly Hit[], aggregates: readonly string[]): Row {
  const visits = hits.filter((h) => h.visit)
  const values: Record<string, string | number> = {
    visits: String(visits.length),
    uniques: String(hits.filter((h) => h.unique).length),
    pageviews: String(hits.length),
    avg_duration: visits.length
      ? (visits.reduce((n, h) => n + h.duration, 0) / visits.length).toFixed(4)
      : '0',
    bounce_rate: visits.length ? visits.filter((h) => h.bounce).length / visits.length : 0,
  }
  return Object.fromEntries(aggregates.map((a) => [a, values[a] as string | number]))
}

function eventRow(conversions: readonly Conversion[], aggregates: readonly string[]): Row {
  const values: Record<string, string> = {
    conversions: String(conversions.length),
    unique_conversions: String(conversions.filter((c) => c.unique).length),
    value: String(conversions.reduce((n, c) => n + c.value, 0)),
  }
  return Object.fromEntries(aggregates.map((a) => [a, values[a] as string]))
}

/**
 * `GET /v1/aggregations`: rows (numbers mostly as strings) wrapped in the list object
 * `{object: "list", url, has_more, data}` (https://usefathom.com/docs/api-reference/reports/aggregation,
 * response example). Needs read access to the site (https://usefathom.com/api/v1/reports).
 */
export function registerAggregationRoutes(app: FastifyInstance, state: FathomState): void {
  app.get('/v1/aggregations', async (request) => {
    const q = request.query as Query
    const entity = q.entity
    if (entity !== 'pageview' && entity !== 'event') throw invalid('The selected entity is invalid.')
    let siteId: string | undefined
    if (entity === 'pageview') {
      if (!q.entity_id) throw invalid('The entity id field is required.')
      siteId = q.entity_id
    } else {
      if (!q.site_id) throw invalid('The site id field is required when entity is event.')
      if (!q.entity_name) throw invalid('The entity name field is required when entity is event.')
      siteId = q.site_id
    }
    requireSite(request, siteId, false)
    if (!state.sites.has(siteId)) throw notFound()
    const aggregates = list(
      q,
      'aggregates',
      entity === 'pageview' ? PAGEVIEW_AGGREGATES : EVENT_AGGREGATES,
      true,
    )
    // hour, day, month or year only (https://usefathom.com/api/v1/reports, `date_grouping`).
    const dateGrouping = q.date_grouping
    if (dateGrouping !== undefined && !(DATE_GROUPINGS as readonly string[]).includes(dateGrouping)) {
      throw invalid('The selected date grouping is invalid.')
    }
    const fields = list(q, 'field_grouping', FIELD_GROUPINGS, false)
    const tz = q.timezone ?? 'UTC'
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz })
    } catch {
      throw invalid('The timezone must be a valid timezone.')
    }
    const from = parseTime('date_from', q.date_from, tz, false)
    const to = parseTime('date_to', q.date_to, tz, true)
    // "an hourly date_grouping over a range longer than 7 days" is a 400 (https://usefathom.com/api/v1/errors).
    if (dateGrouping === 'hour' && (from === undefined || to === undefined || to - from > 7 * 86_400_000)) {
      throw new FathomHttpError(
        400,
        'Hourly date grouping is only supported for date ranges of up to 7 days.',
      )
    }
    // `limit` is documented without a maximum (https://usefathom.com/api/v1/reports): none is modelled;
    // the rule that it is a positive whole number is Laravel-style validation, assumed, not documented.
    let limit: number | undefined
    if (q.limit !== undefined) {
      if (!/^\d+$/.test(q.limit) || Number(q.limit) < 1) throw invalid('The limit must be at least 1.')
      limit = Number(q.limit)
    }
    // `sort_by`: `<field>:asc|desc` over an aggregate, a grouped field or `timestamp`
    // (https://usefathom.com/api/v1/reports).
    let sort: [string, 'asc' | 'desc'] | undefined
    if (q.sort_by !== undefined) {
      const [field, dir] = q.sort_by.split(':')
      const sortable = [...aggregates, ...fields, ...(dateGrouping ? ['timestamp'] : [])]
      if (!field || !sortable.includes(field) || (dir !== 'asc' && dir !== 'desc')) {
        throw invalid(
          'The sort by must be <field>:asc or <field>:desc with a field you aggregate or group by.',
        )
      }
      sort = [field, dir]
    }
    const within = (at: number) => (from === undefined || at >= from) && (to === undefined || at <= to)
    const records: (Hit | Conversion)[] =
      entity === 'pageview'
        ? (state.hits.get(siteId) ?? []).filter((h) => within(h.at))
        : (state.conversions.get(siteId) ?? []).filter((c) => within(c.at) && c.name === q.entity_name)
    const groups = new Map<string, { keys: Row; records: (Hit | Conversion)[] }>()
    for (const r of records) {
      const keys: Row = {}
      if (dateGrouping) keys.date = dateLabel(r.at, dateGrouping, tz)
      for (const f of fields) keys[f] = r.fields[f] ?? ''
      const k = JSON.stringify(keys)
      const g = groups.get(k) ?? { keys, records: [] }
      g.records.push(r)
      groups.set(k, g)
    }
    const rows = [...groups.values()].map((g) => ({
      ...(entity === 'pageview'
        ? pageviewRow(g.records as Hit[], aggregates)
        : eventRow(g.records as Conversion[], aggregates)),
      ...g.keys,
    }))
    if (sort) {
      const [field, dir] = sort
      const key = field === 'timestamp' ? 'date' : field
      const value = (row: Row) => (aggregates.includes(key) ? Number(row[key]) : String(row[key] ?? ''))
      rows.sort((a, b) => {
        const x = value(a)
        const y = value(b)
        return (
          (x < y ? -1 : x > y ? 1 : 0) * (dir === 'asc' ? 1 : -1) ||
          (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)
        )
      })
    }
    return {
      object: 'list',
      url: '/v1/aggregations',
      has_more: limit !== undefined && rows.length > limit,
      data: limit === undefined ? rows : rows.slice(0, limit),
    }
  })
}

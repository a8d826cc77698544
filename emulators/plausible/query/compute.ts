import type { SiteRecord, VisitEvent, VisitRecord } from '../state.js'
import { bucketLabel, isoWithOffset, localDate, zonedToUtc } from './time.js'
import type { Filter, ValidQuery } from './validate.js'

const DAY_MS = 86_400_000

/**
 * Rows its order_by leaves tied come in the opposite order from one query to the next: Plausible orders by the first metric
 * alone unless told otherwise (plausible/analytics:lib/plausible/stats/query_optimizer.ex
 * add_missing_order_by), and ClickHouse outputs rows with identical sort values "in an arbitrary order,
 * which can also be non-deterministic (different each time)"
 * (https://clickhouse.com/docs/en/sql-reference/statements/select/order-by).
 */
let tiesReversed = false

/** Metrics only the events table has (plausible/analytics@088054d9:lib/plausible/stats/table_decider.ex). */
const EVENT_ONLY_METRICS = ['pageviews', 'events', 'total_revenue', 'average_revenue']

/**
 * ClickHouse `timeSlots(start, duration, 900)`: the quarter hours from `start` to `end`, each rounded down
 * to a multiple of 15 minutes, so hours of zones with half- and quarter-hour offsets come out right.
 */
function quarterHourSlots(start: number, end: number): number[] {
  const slot = 900_000
  const out: number[] = []
  for (let at = Math.floor(start / slot) * slot; at <= end; at += slot) out.push(at)
  return out
}

/**
 * What `time` means for a range: hours up to 48 whole hours, days up to 40 whole days, weeks up to 52
 * whole weeks, else months (plausible/analytics@05e071bd:lib/plausible/stats/query_optimizer.ex
 * resolve_time_dimension; DateTime.diff truncates).
 */
function resolveTimeDimension(first: number, last: number): string {
  const span = last - first
  if (Math.trunc(span / 3_600_000) <= 48) return 'time:hour'
  if (Math.trunc(span / DAY_MS) <= 40) return 'time:day'
  if (Math.trunc(span / (7 * DAY_MS)) <= 52) return 'time:week'
  return 'time:month'
}

/**
 * The range's first and last instant (both included), resolved in the site's timezone: dates are whole
 * site-local days, date-times are taken with their own offsets, `Nd` ends yesterday, `month`/`year` are
 * the current calendar ones, `Nmo` the N whole months before this one
 * (plausible/analytics@d5a94c98:lib/plausible/stats/filters/query_parser.ex parse_time_range).
 */
export function resolveRange(range: ValidQuery['date_range'], tz: string, now: number): [number, number] {
  const dayStart = (date: string, plusDays = 0) => {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number]
    return zonedToUtc(y, m, d + plusDays, tz)
  }
  if (Array.isArray(range)) {
    const [a, b] = range
    if (a.length === 10) return [dayStart(a), dayStart(b, 1) - 1000]
    return [Date.parse(a), Date.parse(b)]
  }
  const today = localDate(now, tz)
  const [y, m] = today.split('-').map(Number) as [number, number]
  switch (range) {
    case 'day':
      return [dayStart(today), dayStart(today, 1) - 1000]
    case 'month':
      return [zonedToUtc(y, m, 1, tz), zonedToUtc(y, m + 1, 1, tz) - 1000]
    case 'year':
      return [zonedToUtc(y, 1, 1, tz), zonedToUtc(y + 1, 1, 1, tz) - 1000]
    case '6mo':
      return [zonedToUtc(y, m - 5, 1, tz), zonedToUtc(y, m + 1, 1, tz) - 1000]
    case '12mo':
      return [zonedToUtc(y, m - 11, 1, tz), zonedToUtc(y, m + 1, 1, tz) - 1000]
    case 'all':
      return [0, now]
    default: {
      const days = Number.parseInt(range, 10)
      return [dayStart(today, -days), dayStart(today) - 1000]
    }
  }
}

/**
 * What a breakdown shows for a visit without a value: `(not set)` for UTM tags, device, browser and OS,
 * `Direct / None` for source and referrer, `Direct` for channel; `event:props:*` shows `(none)`. Other
 * dimensions are selected as they are. Source: plausible/analytics@64c93e6a:lib/plausible/stats/sql/
 * expression.ex select_dimension (`field_or_blank_value`, @not_set, @no_ref, @no_channel).
 */
const BLANK_LABEL: Readonly<Record<string, string>> = {
  'visit:utm_medium': '(not set)',
  'visit:utm_source': '(not set)',
  'visit:utm_campaign': '(not set)',
  'visit:utm_content': '(not set)',
  'visit:utm_term': '(not set)',
  'visit:device': '(not set)',
  'visit:browser': '(not set)',
  'visit:browser_version': '(not set)',
  'visit:os': '(not set)',
  'visit:os_version': '(not set)',
  'visit:source': 'Direct / None',
  'visit:referrer': 'Direct / None',
  'visit:channel': 'Direct',
}

/** The label a visit groups under for a dimension (BLANK_LABEL for an empty value), or undefined. */
function groupValue(v: VisitRecord, dimension: string, site: SiteRecord): string | undefined {
  return visitValue(v, dimension, site) ?? BLANK_LABEL[dimension]
}

/** The value of a visit dimension, or undefined when the visit has none. */
function visitValue(v: VisitRecord, dimension: string, site: SiteRecord): string | undefined {
  const map: Record<string, string> = {
    'visit:entry_page': v.entryPage,
    'visit:exit_page': v.exitPage,
    'visit:source': v.source,
    'visit:referrer': v.referrer,
    'visit:channel': v.utmMedium === 'email' ? 'Email' : v.referrer ? 'Organic Search' : 'Direct',
    'visit:utm_medium': v.utmMedium,
    'visit:utm_source': v.utmSource,
    'visit:utm_campaign': v.utmCampaign,
    'visit:device': v.device,
    'visit:browser': v.browser,
    'visit:os': v.os,
    'visit:country': v.country,
    'visit:country_name': v.countryName,
    'visit:region': v.region,
    'visit:region_name': v.regionName,
    'visit:city': v.city,
    'visit:city_name': v.cityName,
    'event:hostname': site.domain,
  }
  const value = map[dimension]
  return value === '' ? undefined : value
}

function matches(op: string, value: string | undefined, clauses: string[]): boolean {
  const v = value ?? ''
  switch (op) {
    case 'is':
      return clauses.includes(v)
    case 'is_not':
      return !clauses.includes(v)
    case 'contains':
      return clauses.some((c) => v.toLowerCase().includes(c.toLowerCase()))
    case 'contains_not':
      return !clauses.some((c) => v.toLowerCase().includes(c.toLowerCase()))
    case 'matches':
      return clauses.some((c) => new RegExp(c).test(v))
    default:
      return !clauses.some((c) => new RegExp(c).test(v))
  }
}

function passes(v: VisitRecord, f: Filter, site: SiteRecord): boolean {
  const [op, dim, clauses] = f
  if (dim === 'event:page') return v.events.some((e) => e.name === 'pageview' && matches(op, e.page, clauses))
  if (dim === 'event:goal')
    return v.events.some((e) => site.goals.includes(e.name) && matches(op, e.name, clauses))
  if (dim === 'event:name') return v.events.some((e) => matches(op, e.name, clauses))
  return matches(op, visitValue(v, dim, site), clauses)
}

interface Group {
  readonly key: string
  readonly visits: Set<VisitRecord>
  readonly events: VisitEvent[]
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

/**
 * Metric values as Plausible returns them: bounce_rate a rounded percentage, visit_duration whole
 * seconds, views_per_visit two decimals, conversion rates one decimal, revenue as a money object
 * (https://plausible.io/docs/stats-api "Metrics"; plausible/analytics:lib/plausible/stats/sql/special_metrics.ex).
 */
function metricOf(metric: string, g: Group, totalVisitors: number): unknown {
  const visits = [...g.visits]
  const visitors = new Set(visits.map((v) => v.visitorId)).size
  const pageviews = g.events.filter((e) => e.name === 'pageview').length
  const revenue = g.events.flatMap((e) => (e.revenue ? [e.revenue] : []))
  const money = (value: number, currency: string) => ({
    value,
    currency,
    short: `${currency === 'EUR' ? '€' : '$'}${value.toFixed(1)}`,
    long: `${currency === 'EUR' ? '€' : '$'}${value.toFixed(2)}`,
  })
  switch (metric) {
    case 'visitors':
      return visitors
    case 'visits':
      return visits.length
    case 'pageviews':
      return pageviews
    case 'events':
      return g.events.length
    case 'views_per_visit':
      return visits.length
        ? round(
            visits.reduce((n, v) => n + v.events.filter((e) => e.name === 'pageview').length, 0) /
              visits.length,
            2,
          )
        : 0
    case 'bounce_rate':
      return visits.length
        ? Math.round(
            (100 * visits.filter((v) => v.events.filter((e) => e.name === 'pageview').length <= 1).length) /
              visits.length,
          )
        : 0
    case 'visit_duration':
      return visits.length
        ? Math.round(visits.reduce((n, v) => n + (v.end - v.start) / 1000, 0) / visits.length)
        : 0
    case 'percentage':
    case 'conversion_rate':
    case 'group_conversion_rate':
      return totalVisitors ? round((100 * visitors) / totalVisitors, 1) : 0
    case 'total_revenue':
      return revenue.length
        ? money(
            revenue.reduce((n, r) => n + r.amount, 0),
            revenue[0]?.currency as string,
          )
        : null
    case 'average_revenue':
      return revenue.length
        ? money(revenue.reduce((n, r) => n + r.amount, 0) / revenue.length, revenue[0]?.currency as string)
        : null
    default:
      return null
  }
}

/**
 * Runs a validated query over the site's visits: group, measure, order (time dimensions ascending,
 * otherwise the first metric descending), page; answers `{results, meta, query}` with the query's
 * date_range echoed in the site's offset (https://plausible.io/docs/stats-api "Response structure";
 * plausible/analytics:lib/plausible/stats/query_result.ex).
 */
export function runQuery(q: ValidQuery, site: SiteRecord, visits: readonly VisitRecord[], now: number) {
  const [from, to] = resolveRange(q.date_range, site.timezone, now)
  const inRange = visits.filter(
    (v) => v.start >= from && v.start <= to && q.filters.every((f) => passes(v, f, site)),
  )
  const totalVisitors = new Set(inRange.map((v) => v.visitorId)).size
  const groups = new Map<string, Group>()
  const add = (key: string[], v: VisitRecord, events: VisitEvent[]) => {
    const k = JSON.stringify(key)
    const g = groups.get(k) ?? { key: k, visits: new Set<VisitRecord>(), events: [] }
    g.visits.add(v)
    g.events.push(...events)
    groups.set(k, g)
  }
  const timeDim = q.dimensions.find((d) => d.startsWith('time'))
  const autoTime = timeDim === 'time' ? resolveTimeDimension(from, to) : timeDim
  const sessionsOnly =
    !q.metrics.some((m) => EVENT_ONLY_METRICS.includes(m)) &&
    !q.dimensions.some((d) => d.startsWith('event:')) &&
    !q.filters.some((f) => f[1].startsWith('event:'))
  for (const v of inRange) {
    // Every dimension value of this visit; event dimensions split a visit by its events.
    let keys: { key: string[]; events: VisitEvent[] }[] = [{ key: [], events: v.events }]
    for (const d of q.dimensions) {
      const next: typeof keys = []
      for (const k of keys) {
        if (d.startsWith('time')) {
          const firstDate = localDate(from, site.timezone)
          // Hourly buckets read from the sessions table count a visit in every hour it was active in
          // (ClickHouse timeSlots over start..start+duration, then toStartOfHour: plausible/analytics@
          // 64c93e6a:lib/plausible/stats/sql/expression.ex select_dimension "time:hour", :sessions). The
          // sessions table answers when no metric, dimension or filter needs events (table_decider.ex).
          const instants =
            autoTime === 'time:hour' && sessionsOnly
              ? quarterHourSlots(v.start, Math.max(v.start, Math.min(v.end, to)))
              : [v.start]
          for (const label of new Set(
            instants.map((at) => bucketLabel(at, autoTime as string, site.timezone, firstDate)),
          )) {
            next.push({ key: [...k.key, label], events: k.events })
          }
        } else if (d === 'event:page') {
          for (const page of new Set(k.events.filter((e) => e.name === 'pageview').map((e) => e.page))) {
            next.push({
              key: [...k.key, page],
              events: k.events.filter((e) => e.page === page && e.name === 'pageview'),
            })
          }
        } else if (d === 'event:goal' || d === 'event:name') {
          // event:goal groups configured goals only; event:name every event, pageviews included.
          const named = k.events.filter((e) => d === 'event:name' || site.goals.includes(e.name))
          for (const name of new Set(named.map((e) => e.name))) {
            next.push({ key: [...k.key, name], events: k.events.filter((e) => e.name === name) })
          }
        } else if (d.startsWith('event:props:')) {
          // Events grouped by the property's value, `(none)` without it (expression.ex).
          const prop = d.slice('event:props:'.length)
          const propValue = (e: VisitEvent) => e.props?.[prop] ?? '(none)'
          for (const value of new Set(k.events.map(propValue))) {
            next.push({ key: [...k.key, value], events: k.events.filter((e) => propValue(e) === value) })
          }
        } else {
          const value = groupValue(v, d, site)
          if (value !== undefined) next.push({ key: [...k.key, value], events: k.events })
        }
      }
      keys = next
    }
    for (const k of keys) add(k.key, v, k.events)
  }
  // Without dimensions the query is one aggregate, answered as one row of zeros even when no visit matched
  // (`[{"dimensions": [], "metrics": [0]}]`: plausible/analytics@3090af4b:test/plausible_web/controllers/api/
  // external_stats_controller/query_internal_test.exs "scroll depth is 0 when no data at all in range", and
  // @42229e17:…/external_stats_controller/sequence_test.exs, an aggregate whose filter matches no visit).
  if (q.dimensions.length === 0 && groups.size === 0)
    groups.set('[]', { key: '[]', visits: new Set(), events: [] })
  const rows = [...groups.values()].map((g) => ({
    dimensions: JSON.parse(g.key) as string[],
    metrics: q.metrics.map((m) => metricOf(m, g, totalVisitors)),
  }))
  // No order_by: the time dimension ascending, then the first metric descending
  // (plausible/analytics@05e071bd:lib/plausible/stats/query_optimizer.ex add_missing_order_by).
  const firstMetricDesc = [q.metrics[0] as string, 'desc'] as [string, 'desc']
  const order =
    q.order_by ?? (timeDim ? [[timeDim, 'asc'] as [string, 'asc'], firstMetricDesc] : [firstMetricDesc])
  const sortValue = (row: (typeof rows)[number], name: string) => {
    const mi = q.metrics.indexOf(name)
    if (mi >= 0) {
      const m = row.metrics[mi]
      return typeof m === 'number' ? m : m && typeof m === 'object' ? (m as { value: number }).value : -1
    }
    return row.dimensions[q.dimensions.indexOf(name)] ?? ''
  }
  tiesReversed = !tiesReversed
  const tieOrder = tiesReversed ? -1 : 1
  rows.sort((a, b) => {
    for (const [name, dir] of order) {
      const x = sortValue(a, name)
      const y = sortValue(b, name)
      if (x !== y) return (x < y ? -1 : 1) * (dir === 'asc' ? 1 : -1)
    }
    return (JSON.stringify(a.dimensions) < JSON.stringify(b.dimensions) ? -1 : 1) * tieOrder
  })
  const { limit, offset } = q.pagination
  return {
    results: rows.slice(offset, offset + limit),
    // imports_included only when imports were asked about; total_rows only when asked for
    // (plausible/analytics@0359c2d6:lib/plausible/stats/query_result.ex meta/1).
    meta: {
      ...(q.include.imports ? { imports_included: false } : {}),
      ...(q.include.total_rows ? { total_rows: rows.length } : {}),
    },
    query: {
      site_id: q.site_id,
      metrics: q.metrics,
      date_range: [isoWithOffset(from, site.timezone), isoWithOffset(to, site.timezone)],
      filters: q.filters,
      dimensions: q.dimensions,
      order_by: order,
      include: { imports: false, ...q.include },
      pagination: q.pagination,
    },
  }
}

import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import type { WriteBody } from '../types.js'
import { dayIn } from '../zones.js'
import { type BucketZone, bucketBounds, offsetOfIso } from './buckets.js'
import type { PlausibleMetricValue, PlausibleQueryResult, PlausibleSite } from './types.js'

/** A Plausible site is identified by its domain: it is both the unified id and the name. */
export function fromPlausibleSite(site: PlausibleSite, teamId?: string): UnifiedRecord {
  return {
    id: site.domain,
    name: site.domain,
    timezone: site.timezone,
    parent_id: teamId,
    raw: site,
  }
}

function refuse(body: WriteBody, fields: readonly string[], why: string): void {
  for (const field of fields) {
    if (body[field] !== undefined) throw badRequest(`Plausible ${why}; leave '${field}' out`)
  }
}

/** `POST /api/v1/sites`: the name is the domain; the timezone is fixed at creation (default Etc/UTC). */
export function toPlausibleSiteCreate(body: WriteBody): Record<string, unknown> {
  refuse(body, ['currency', 'industry'], 'sites have no currency or industry')
  const raw = (body.raw ?? {}) as Record<string, unknown>
  const domain = body.name ?? raw.domain
  if (typeof domain !== 'string' || domain === '') {
    throw badRequest('Plausible needs the site domain as name to create a site')
  }
  return {
    ...raw,
    domain,
    ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
    ...(body.parent_id !== undefined ? { team_id: body.parent_id } : {}),
  }
}

/** `PUT /api/v1/sites/{domain}`: a new name is a new domain; Plausible's API cannot change the timezone or team. */
export function toPlausibleSiteUpdate(body: WriteBody): Record<string, unknown> {
  refuse(body, ['timezone'], 'cannot change a site timezone through its API')
  refuse(body, ['parent_id'], 'cannot move a site to another team through its API')
  refuse(body, ['currency', 'industry'], 'sites have no currency or industry')
  const raw = (body.raw ?? {}) as Record<string, unknown>
  return { ...raw, ...(body.name !== undefined ? { domain: body.name } : {}) }
}

/** Plausible's built-in goal names for the unified types they stand for (providers.md 12.1). */
const NAME_OF_TYPE: Readonly<Record<string, string>> = {
  PAGE_VIEW: 'pageview',
  CLICK: 'Outbound Link: Click',
  FORM_SUBMIT: 'Form: Submission',
  FILE_DOWNLOAD: 'File Download',
}

const TYPE_OF_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(NAME_OF_TYPE).map(([type, name]) => [name, type]),
)

export function eventTypeOfPlausibleName(name: string): string {
  return TYPE_OF_NAME[name] ?? 'CUSTOM'
}

/**
 * Props are scalar at Plausible; unified metadata values are objects, so those travel as JSON text.
 * Plausible keeps the first 30 props and drops blank ones silently, and refuses keys over 300 bytes or
 * values over 2000 (plausible/analytics lib/plausible/ingestion/request.ex put_props), so those are
 * refused here rather than lost.
 */
function propsOf(metadata: unknown): Record<string, string | number | boolean> | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined
  const out: Record<string, string | number | boolean> = {}
  for (const [k, v] of Object.entries(metadata)) {
    if (v === null || v === undefined) continue
    const value = typeof v === 'object' ? JSON.stringify(v) : (v as string | number | boolean)
    if (k.trim() === '' || String(value).trim() === '')
      throw badRequest(`metadata.${k}: Plausible drops blank property names and values`)
    if (Buffer.byteLength(k) > 300 || Buffer.byteLength(String(value)) > 2000)
      throw badRequest(`metadata.${k}: Plausible takes property names up to 300 bytes and values up to 2000`)
    out[k] = value
  }
  if (Object.keys(out).length > 30)
    throw badRequest(
      `metadata: Plausible keeps at most 30 properties per event, ${Object.keys(out).length} given`,
    )
  return Object.keys(out).length > 0 ? out : undefined
}

function withUtm(pageUrl: string, body: WriteBody): string {
  const tags = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].filter(
    (k) => typeof body[k] === 'string',
  )
  if (tags.length === 0) return pageUrl
  const u = new URL(pageUrl)
  for (const k of tags) u.searchParams.set(k, body[k] as string)
  return u.toString()
}

/**
 * The body of `POST /api/event`. Plausible derives visitor and session from User-Agent and IP, so those
 * (and device or place) cannot be sent; campaign tags travel in the URL, revenue as `{currency, amount}`.
 */
export function toPlausibleEvent(body: WriteBody): Record<string, unknown> {
  refuse(
    body,
    ['visitor_id', 'session_id', 'device', 'browser', 'os', 'country', 'country_code', 'region', 'city'],
    'derives visitors, sessions, device and place itself from the request',
  )
  if (typeof body.property_id !== 'string' || body.property_id === '') {
    throw badRequest('Plausible needs property_id (the site domain) to record an event')
  }
  if (typeof body.page_url !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(body.page_url)) {
    throw badRequest('Plausible needs page_url, an absolute URL such as https://acme.com/pricing')
  }
  const type = typeof body.event_type === 'string' ? body.event_type : undefined
  const name = type === 'PAGE_VIEW' ? 'pageview' : (body.name ?? (type ? NAME_OF_TYPE[type] : undefined))
  if (typeof name !== 'string' || name === '') {
    throw badRequest('Plausible needs a name for an event that is not a PAGE_VIEW')
  }
  if ((body.value === undefined) !== (body.currency === undefined)) {
    throw badRequest('Plausible records revenue as an amount with its currency: send both value and currency')
  }
  // An unknown currency makes Plausible ignore the revenue silently (extra/lib/plausible/ingestion/request/revenue.ex).
  if (
    body.currency !== undefined &&
    (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
  ) {
    throw badRequest('currency: give an ISO 4217 code such as EUR; Plausible ignores revenue in any other')
  }
  const props = propsOf(body.metadata)
  return {
    domain: body.property_id,
    name,
    url: withUtm(body.page_url, body),
    ...(body.page_referrer !== undefined ? { referrer: body.page_referrer } : {}),
    ...(props ? { props } : {}),
    ...(body.value !== undefined ? { revenue: { currency: body.currency, amount: body.value } } : {}),
    ...((body.raw ?? {}) as Record<string, unknown>),
  }
}

export function fromPlausibleEventSent(
  id: string,
  body: WriteBody,
  sent: Record<string, unknown>,
  now: Date,
) {
  const url = new URL(sent.url as string)
  const utm = (k: string) => url.searchParams.get(k) ?? undefined
  return {
    id,
    created_at: now,
    updated_at: now,
    name: sent.name,
    event_type: eventTypeOfPlausibleName(sent.name as string),
    property_id: sent.domain,
    page_url: sent.url,
    page_title: body.page_title,
    page_referrer: body.page_referrer,
    metadata: body.metadata,
    value: body.value,
    currency: body.currency,
    utm_source: utm('utm_source'),
    utm_medium: utm('utm_medium'),
    utm_campaign: utm('utm_campaign'),
    utm_term: utm('utm_term'),
    utm_content: utm('utm_content'),
    raw: { ...sent, __id: id },
  }
}

/** Unified metric types onto Plausible v2 metrics; percentages become fractions (0-1) as everywhere here. */
export const METRIC_OF_TYPE: Readonly<Record<string, { metric: string; scale?: number }>> = {
  USERS: { metric: 'visitors' },
  SESSIONS: { metric: 'visits' },
  PAGE_VIEWS: { metric: 'pageviews' },
  PAGES_PER_SESSION: { metric: 'views_per_visit' },
  BOUNCE_RATE: { metric: 'bounce_rate', scale: 0.01 },
  AVERAGE_SESSION_DURATION: { metric: 'visit_duration' },
  EVENTS: { metric: 'events' },
  CONVERSION_RATE: { metric: 'conversion_rate', scale: 0.01 },
  REVENUE: { metric: 'total_revenue' },
}

const TYPE_OF_METRIC: Readonly<Record<string, { type: string; scale?: number }>> = Object.fromEntries(
  Object.entries(METRIC_OF_TYPE).map(([type, m]) => [
    m.metric,
    { type, ...(m.scale ? { scale: m.scale } : {}) },
  ]),
)

/** Unified dimensions onto Plausible v2 dimensions (providers.md 12.3). */
export const DIMENSION_OF: Readonly<Record<string, string>> = {
  DATE: 'time:day',
  HOUR: 'time:hour',
  WEEK: 'time:week',
  MONTH: 'time:month',
  PAGE: 'event:page',
  // event:name counts every event by its name; event:goal would show configured goals only
  // (plausible/analytics priv/json-schemas/query-api-schema.json simple_filter_dimensions).
  EVENT_NAME: 'event:name',
  LANDING_PAGE: 'visit:entry_page',
  SOURCE: 'visit:source',
  MEDIUM: 'visit:utm_medium',
  CAMPAIGN: 'visit:utm_campaign',
  COUNTRY: 'visit:country',
  CITY: 'visit:city_name',
  DEVICE_TYPE: 'visit:device',
  BROWSER: 'visit:browser',
  OS: 'visit:os',
}

function numberOf(value: PlausibleMetricValue): number | undefined {
  if (value === null || value === undefined) return undefined
  return typeof value === 'number' ? value : value.value
}

/** The local day (YYYY-MM-DD) of `instant` in the site's zone, or at the offset Plausible echoed. */
function localDayOf(instant: number, zone: BucketZone): string {
  return typeof zone === 'string'
    ? dayIn(instant, zone)
    : new Date(instant + zone.fixedOffsetMs).toISOString().slice(0, 10)
}

/**
 * A row's dimension value as the unified report shows it: a time bucket's local label (`2024-05-10 13:00:00`,
 * a month's `2024-05-01`) in the one form of time labels (time-buckets.ts); any other value as Plausible
 * gives it.
 */
function labelOf(
  dimension: string | undefined,
  value: string | undefined,
  firstDay: string | undefined,
): string | undefined {
  if (value === undefined || !isTimeDimension(dimension)) return value
  return timeBucketLabelOf(dimension, value, firstDay) ?? value
}

/**
 * `/api/v2/query` results as one report per row: each row's metrics paired with `query.metrics` by position,
 * its dimension value with `query.dimensions`. Metrics without a unified name stay in `raw` only.
 */
export function fromPlausibleQuery(
  result: PlausibleQueryResult,
  siteId: string,
  start: Date,
  end: Date,
  dimension: string | undefined,
  timeZone?: string,
): UnifiedRecord[] {
  const names = result.query.metrics
  const timeDimension = result.query.dimensions?.find((d) => d.startsWith('time'))
  // Without the site's zone, the offset Plausible echoed for the window (exact unless DST changes in it).
  const echoed = offsetOfIso(result.query.date_range?.[0])
  const zone: BucketZone | undefined =
    timeZone ?? (echoed === undefined ? undefined : { fixedOffsetMs: echoed })
  // Plausible already labels a week begun before the window by the window's first day; kept so here too.
  const firstDay = zone ? localDayOf(start.getTime(), zone) : undefined
  return result.results.map((row) => {
    // A time bucket claims its own instants, cut to the window asked for.
    const bucket =
      timeDimension && zone ? bucketBounds(timeDimension, row.dimensions[0] ?? '', zone) : undefined
    const dimensionValue = labelOf(dimension, row.dimensions[0], firstDay)
    const rowStart = bucket ? new Date(Math.max(bucket.start, start.getTime())) : start
    const rowEnd = bucket ? new Date(Math.min(bucket.end, end.getTime())) : end
    const metrics = []
    for (const [i, name] of names.entries()) {
      const unified = TYPE_OF_METRIC[name]
      const value = numberOf(row.metrics[i] ?? null)
      if (!unified || value === undefined) continue
      metrics.push({
        type: unified.type,
        value: unified.scale ? value * unified.scale : value,
        ...(dimension ? { dimension, dimension_value: dimensionValue } : {}),
      })
    }
    return {
      property_id: siteId,
      start_at: rowStart,
      end_at: rowEnd,
      metrics,
      raw: {
        ...row,
        metric_names: names,
        dimension_names: result.query.dimensions ?? [],
        date_range: result.query.date_range,
      },
    }
  })
}

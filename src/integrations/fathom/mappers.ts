import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { isTimeDimension, timeBucketLabelOf } from '../time-buckets.js'
import type { WriteBody } from '../types.js'
import { utcMs } from '../zones.js'
import type { FathomRow, FathomSite } from './types.js'

/** Fathom prints times as `YYYY-MM-DD HH:MM:SS` in UTC. */
export function parseFathomTime(value: string | undefined): Date | undefined {
  if (!value) return undefined
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export function formatFathomTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
}

export function fromFathomSite(site: FathomSite): UnifiedRecord {
  const created = parseFathomTime(site.created_at)
  return {
    id: site.id,
    name: site.name,
    timezone: site.timezone,
    created_at: created,
    raw: site,
  }
}

/** Fathom takes a site's name and sharing settings only (`sharing`, `share_password` via raw). */
export function toFathomSite(body: WriteBody, creating: boolean): Record<string, unknown> {
  for (const field of ['timezone', 'currency', 'industry', 'parent_id'] as const) {
    if (body[field] !== undefined) {
      throw badRequest(`Fathom's API cannot set a site's ${field}; leave '${field}' out`)
    }
  }
  const out: Record<string, unknown> = { ...((body.raw ?? {}) as Record<string, unknown>) }
  if (body.name !== undefined) out.name = body.name
  if (creating && (typeof out.name !== 'string' || out.name === '')) {
    throw badRequest('Fathom needs a name to create a site')
  }
  return out
}

/**
 * Unified metric types onto Fathom aggregates. Fathom's `visits` are unique site visits (sessions) and
 * `uniques` unique page visits, so neither is USERS; `value` is in cents. `bounce_rate` comes as a 0-1
 * fraction (a JSON number, bounces over visits), the scale of unified BOUNCE_RATE, so it is reported as
 * given: live answers recorded in spences10/scottspence.com@1a691ff1 (posts/2023/02/21/adding-real-time-
 * analytics-to-my-sveltekit-site-with-fathom/index.md) show 0.2828282828282828 for 99 visits, and Fathom
 * clients multiply it by 100 to print a percentage (bencarr/craft-fathom-analytics@ca291ecd,
 * src/templates/widgets/overview.twig).
 */
export const PAGEVIEW_AGGREGATES: Readonly<Record<string, string>> = {
  SESSIONS: 'visits',
  UNIQUE_PAGE_VIEWS: 'uniques',
  PAGE_VIEWS: 'pageviews',
  AVERAGE_SESSION_DURATION: 'avg_duration',
  BOUNCE_RATE: 'bounce_rate',
}

export const EVENT_AGGREGATES: Readonly<Record<string, string>> = {
  CONVERSIONS: 'conversions',
  REVENUE: 'value',
}

const TYPE_OF_AGGREGATE: Readonly<Record<string, string>> = Object.fromEntries(
  [...Object.entries(PAGEVIEW_AGGREGATES), ...Object.entries(EVENT_AGGREGATES)].map(([t, a]) => [a, t]),
)

/** `date_grouping` takes hour, day, month or year, no week (https://usefathom.com/api/v1/reports). */
export const DATE_GROUPING: Readonly<Record<string, string>> = {
  HOUR: 'hour',
  DATE: 'day',
  MONTH: 'month',
  YEAR: 'year',
}

/**
 * The UTC instant range of a date-grouped row's `date` label (`2024-05-01 10:00:00`, `2024-05-01`,
 * `2024-05`, `2024`; asked with timezone=UTC), or undefined when the label does not read as one.
 */
export function bucketOf(label: unknown, grouping: string): { start: Date; end: Date } | undefined {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?(?:[ T](\d{2}))?/.exec(String(label ?? ''))
  if (!m) return undefined
  const [y, mo, d, h] = [Number(m[1]), Number(m[2] ?? 1) - 1, Number(m[3] ?? 1), Number(m[4] ?? 0)]
  const start = utcMs(y, mo, d, h)
  const end =
    grouping === 'hour'
      ? start + 3_600_000
      : grouping === 'day'
        ? utcMs(y, mo, d + 1)
        : grouping === 'month'
          ? utcMs(y, mo + 1, 1)
          : utcMs(y + 1, 0, 1)
  return { start: new Date(start), end: new Date(end) }
}

export const FIELD_GROUPING: Readonly<Record<string, string>> = {
  PAGE: 'pathname',
  SOURCE: 'referrer_hostname',
  MEDIUM: 'utm_medium',
  CAMPAIGN: 'utm_campaign',
  COUNTRY: 'country_code',
  DEVICE_TYPE: 'device_type',
  BROWSER: 'browser',
  OS: 'operating_system',
}

function numberOf(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined || value === '') return undefined
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) ? n : undefined
}

/** One aggregation row as a report; its grouping key (`date` or the field) is the dimension value. */
export function fromFathomRow(
  row: FathomRow,
  aggregates: readonly string[],
  siteId: string,
  start: Date,
  end: Date,
  dimension?: { unified: string; key: string; grouping?: string },
): UnifiedRecord {
  const label = dimension ? row[dimension.key] : undefined
  const bucket = dimension?.grouping ? bucketOf(label, dimension.grouping) : undefined
  const text = label == null ? '' : String(label)
  // A date group's label (`2024-05-01 10:00:00`, `2024-05`, of UTC, asked so) in the one form of time
  // labels (time-buckets.ts); a field group's value as Fathom gives it.
  const dimensionValue =
    dimension?.grouping && isTimeDimension(dimension.unified)
      ? (timeBucketLabelOf(dimension.unified, text) ?? text)
      : text
  const metrics = []
  for (const aggregate of aggregates) {
    const type = TYPE_OF_AGGREGATE[aggregate]
    const value = numberOf(row[aggregate])
    if (!type || value === undefined) continue
    metrics.push({
      type,
      value: aggregate === 'value' ? value / 100 : value,
      ...(dimension ? { dimension: dimension.unified, dimension_value: dimensionValue } : {}),
    })
  }
  // A date-grouped row is its bucket, cut to the range asked where the bucket runs past it.
  const from = bucket && bucket.start > start ? bucket.start : start
  const to = bucket && bucket.end < end ? bucket.end : end
  return { property_id: siteId, start_at: from, end_at: to, metrics, raw: row }
}

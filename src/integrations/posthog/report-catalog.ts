import type { Dimension, MetricType } from '../../models/index.js'

export type ReportTable = 'events' | 'sessions'

/**
 * providers.md §12.2: the unified metrics PostHog can compute, and over which HogQL table. `ownQuery`: the
 * metric reads `events.person_id`, which a project without persons-on-events resolves through an INNER
 * JOIN of `person_distinct_ids` that drops person-less events from the whole query; alone in its query it
 * cannot take them from the page views and events counted beside it (visitor-ids.ts). There USERS counts
 * persons only, as PostHog does; with persons-on-events each person-less distinct id counts once.
 */
export const REPORT_METRICS: Readonly<
  Partial<
    Record<MetricType, { readonly table: ReportTable; readonly expr: string; readonly ownQuery?: true }>
  >
> = {
  USERS: { table: 'events', expr: 'count(DISTINCT person_id)', ownQuery: true },
  PAGE_VIEWS: { table: 'events', expr: "countIf(event = '$pageview')" },
  SCREENS: { table: 'events', expr: "countIf(event = '$screen')" },
  EVENTS: { table: 'events', expr: 'count()' },
  REVENUE: { table: 'events', expr: 'sum(toFloat(properties.revenue))' },
  SESSIONS: { table: 'sessions', expr: 'count()' },
  BOUNCE_RATE: { table: 'sessions', expr: 'avg($is_bounce)' },
  AVERAGE_SESSION_DURATION: { table: 'sessions', expr: 'avg($session_duration)' },
  PAGES_PER_SESSION: { table: 'sessions', expr: 'avg($pageview_count)' },
}

/** What a report answers when no `type` is given. */
export const DEFAULT_REPORT_METRICS: readonly MetricType[] = [
  'USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'EVENTS',
  'BOUNCE_RATE',
  'AVERAGE_SESSION_DURATION',
]

/** providers.md §12.3: each unified dimension's HogQL expression, per table that has it. */
export const REPORT_DIMENSIONS: Readonly<Partial<Record<Dimension, Partial<Record<ReportTable, string>>>>> = {
  DATE: { events: 'toDate(timestamp)', sessions: 'toDate($start_timestamp)' },
  HOUR: { events: 'toStartOfHour(timestamp)', sessions: 'toStartOfHour($start_timestamp)' },
  PAGE: { events: 'properties.$pathname' },
  PAGE_TITLE: { events: 'properties.title' },
  EVENT_NAME: { events: 'event' },
  // Where a visit came from is its session's entry (first event's) campaign and referrer, over events and
  // sessions alike, so that one source's users, page views and sessions are the same visits: events reach
  // them through HogQL's `session` join, as PostHog's web analytics breaks events down by
  // `session.$entry_utm_source` (posthog/hogql_queries/web_analytics/stats_table.py `INITIAL_UTM_SOURCE`).
  // SOURCE is the utm source, else the referring domain, as the sessions' `source` field and filter are.
  SOURCE: {
    events: 'coalesce(session.$entry_utm_source, session.$entry_referring_domain)',
    sessions: 'coalesce($entry_utm_source, $entry_referring_domain)',
  },
  MEDIUM: { events: 'session.$entry_utm_medium', sessions: '$entry_utm_medium' },
  CAMPAIGN: { events: 'session.$entry_utm_campaign', sessions: '$entry_utm_campaign' },
  COUNTRY: { events: 'properties.$geoip_country_code' },
  CITY: { events: 'properties.$geoip_city_name' },
  DEVICE_TYPE: { events: 'properties.$device_type' },
  BROWSER: { events: 'properties.$browser' },
  OS: { events: 'properties.$os' },
  LANDING_PAGE: { sessions: '$entry_pathname' },
}

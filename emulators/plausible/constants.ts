export const DEFAULT_PLAUSIBLE_API_KEY = 'plausible_emulator_key'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'
export const DATA_SPAN_DAYS = 30

/**
 * Sites API pages: the controller asks for 100 rows by default and up to 1000
 * (plausible/analytics@0b6cea7d:extra/lib/plausible_web/controllers/api/external_sites_controller.ex
 * @pagination_opts), but Plausible.Pagination only takes a `limit` from 1 to its own @maximum_limit of
 * 100 and silently ignores any other, keeping the default
 * (plausible/analytics@04f5deb8:lib/plausible/pagination.ex to_pagination_opts).
 */
export const SITES_DEFAULT_LIMIT = 100
export const SITES_MAX_LIMIT = 100

/**
 * The metrics the public Stats API v2 schema takes. `time_on_page` and `new_time_on_page` are
 * `only :internal` there, so the public API refuses them
 * (plausible/analytics@676dce0e:priv/json-schemas/query-api-schema.json, definitions.metric).
 */
export const METRICS = [
  'visitors',
  'visits',
  'pageviews',
  'views_per_visit',
  'bounce_rate',
  'visit_duration',
  'events',
  'scroll_depth',
  'percentage',
  'conversion_rate',
  'group_conversion_rate',
  'average_revenue',
  'total_revenue',
] as const

/** simple_filter_dimensions of the same schema (the visit: ones). */
export const VISIT_DIMENSIONS = [
  'visit:entry_page',
  'visit:exit_page',
  'visit:entry_page_hostname',
  'visit:exit_page_hostname',
  'visit:screen',
  'visit:source',
  'visit:referrer',
  'visit:channel',
  'visit:utm_medium',
  'visit:utm_source',
  'visit:utm_campaign',
  'visit:utm_content',
  'visit:utm_term',
  'visit:device',
  'visit:browser',
  'visit:browser_version',
  'visit:os',
  'visit:os_version',
  'visit:country',
  'visit:region',
  'visit:city',
  'visit:country_name',
  'visit:region_name',
  'visit:city_name',
] as const

/** The event: dimensions of the same schema: `event:name` (any event) and `event:goal` (configured goals). */
export const EVENT_DIMENSIONS = ['event:goal', 'event:name', 'event:page', 'event:hostname'] as const
/** time_dimensions of the same schema. */
export const TIME_DIMENSIONS = ['time', 'time:hour', 'time:day', 'time:week', 'time:month'] as const
/**
 * The public date_range shorthands (`30m` and `realtime` are internal only)
 * (plausible/analytics@676dce0e:priv/json-schemas/query-api-schema.json date_range_shorthand).
 */
export const DATE_RANGE_WORDS = ['day', '7d', '30d', 'month', '6mo', '12mo', 'year', 'all'] as const

/**
 * How Plausible's TableDecider files metrics and dimensions: session-only metrics cannot go with event
 * dimensions (except `event:page` alone), event-only metrics cannot go with session-only dimensions;
 * `visitors`, `visits`, `conversion_rate`, `percentage` fit either
 * (plausible/analytics@a00cf441:lib/plausible/stats/table_decider.ex metric_partitioner,
 * dimension_partitioner, validate_no_metrics_dimensions_conflict).
 */
export const SESSION_METRICS = ['bounce_rate', 'visit_duration', 'views_per_visit'] as const
export const EVENT_METRICS = [
  'pageviews',
  'events',
  'scroll_depth',
  'total_revenue',
  'average_revenue',
] as const
export const SESSION_DIMENSIONS = [
  'visit:entry_page',
  'visit:entry_page_hostname',
  'visit:exit_page',
  'visit:exit_page_hostname',
] as const

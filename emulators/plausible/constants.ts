export const DEFAULT_PLAUSIBLE_API_KEY = 'plausible_emulator_key'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'
export const DATA_SPAN_DAYS = 30

/** Plausible's default and our largest page of sites. */
export const SITES_DEFAULT_LIMIT = 100
export const SITES_MAX_LIMIT = 100

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
  'time_on_page',
] as const

export const VISIT_DIMENSIONS = [
  'visit:entry_page',
  'visit:exit_page',
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

export const EVENT_DIMENSIONS = ['event:goal', 'event:page', 'event:hostname'] as const
export const TIME_DIMENSIONS = ['time', 'time:hour', 'time:day', 'time:week', 'time:month'] as const
export const DATE_RANGE_WORDS = [
  'day',
  '24h',
  '7d',
  '28d',
  '30d',
  '91d',
  'month',
  '6mo',
  '12mo',
  'year',
  'all',
] as const

/** Metrics computed per visit, which Plausible refuses next to event dimensions other than the page. */
export const SESSION_METRICS = ['visits', 'bounce_rate', 'visit_duration', 'views_per_visit'] as const

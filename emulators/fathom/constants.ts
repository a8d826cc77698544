export const DEFAULT_FATHOM_API_KEY = 'fathom_emulator_token'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'
export const DATA_SPAN_DAYS = 30

/** `aggregates` per entity (https://usefathom.com/api/v1/reports). */
export const PAGEVIEW_AGGREGATES = ['visits', 'uniques', 'pageviews', 'avg_duration', 'bounce_rate'] as const
export const EVENT_AGGREGATES = ['conversions', 'unique_conversions', 'value'] as const
/** `date_grouping`: "hour, day, month or year" (https://usefathom.com/api/v1/reports); no week. */
export const DATE_GROUPINGS = ['hour', 'day', 'month', 'year'] as const
/** `field_grouping` fields (https://usefathom.com/api/v1/reports, `field_grouping`). */
export const FIELD_GROUPINGS = [
  'hostname',
  'pathname',
  'referrer_hostname',
  'referrer_pathname',
  'browser',
  'country_code',
  'device_type',
  'operating_system',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
] as const

/** The key the emulator accepts unless told otherwise: in `x-umami-api-key` under `/v1`, as Bearer under `/api`. */
export const DEFAULT_UMAMI_API_KEY = 'api_umami_emulator_key'

/** End of the seeded data's window; fixed so the data never depends on the clock. */
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/** Days of seeded traffic before `until`. */
export const DATA_SPAN_DAYS = 30

/** Umami's page size when none is given. */
export const DEFAULT_PAGE_SIZE = 20

/** `/metrics?type=` values Umami accepts (providers.md 7.3). */
export const METRIC_TYPES = [
  'path',
  'entry',
  'exit',
  'title',
  'query',
  'hostname',
  'referrer',
  'domain',
  'channel',
  'event',
  'tag',
  'browser',
  'os',
  'device',
  'screen',
  'language',
  'country',
  'region',
  'city',
  'distinctId',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmContent',
  'utmTerm',
] as const

export const UNITS = ['minute', 'hour', 'day', 'month', 'year'] as const

/** The Umami Cloud API key the emulator accepts unless told otherwise, in `x-umami-api-key` under `/v1`. */
export const DEFAULT_UMAMI_API_KEY = 'api_umami_emulator_key'

/**
 * A self-hosted login token the emulator accepts unless told otherwise, as Bearer under `/api`; more are
 * issued by `POST /api/auth/login`. Self-hosted Umami has no API keys, only these tokens.
 */
export const DEFAULT_UMAMI_LOGIN_TOKEN = 'umami_emulator_login_token'

/**
 * The account `POST /api/auth/login` accepts, with a fresh install's credentials ("admin" / "umami",
 * https://umami.is/docs/login), though modelled as a plain user (see auth.ts).
 */
export const DEFAULT_UMAMI_USER = { username: 'admin', password: 'umami' } as const

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

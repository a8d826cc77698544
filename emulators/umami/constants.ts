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

/** End of the seeded data's window (emulator seed, no provider rule); fixed so the data never depends on the clock. */
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/** Days of seeded traffic before `until`. */
export const DATA_SPAN_DAYS = 30

/** Umami's page size when none is given (umami-software/umami@v3.1.0:src/lib/constants.ts `DEFAULT_PAGE_SIZE`). */
export const DEFAULT_PAGE_SIZE = 20

/**
 * `/metrics?type=` values Umami answers: `EVENT_COLUMNS` and `SESSION_COLUMNS` of src/lib/constants.ts, plus
 * `channel`; any other type is a bare 400 "Bad request" (umami-software/umami@v3.1.0:
 * src/app/api/websites/[websiteId]/metrics/route.ts).
 */
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

/** `unit` values (umami-software/umami@v3.1.0:src/lib/constants.ts `UNIT_TYPES`, src/lib/schema.ts `unitParam`). */
export const UNITS = ['minute', 'hour', 'day', 'month', 'year'] as const

/**
 * `/metrics` rows when `limit`/`offset` are not given: 500 from 0 (umami-software/umami@v3.1.0:
 * src/queries/sql/pageviews/getPageviewMetrics.ts, sessions/getSessionMetrics.ts, events/getEventMetrics.ts).
 */
export const METRICS_DEFAULT_LIMIT = 500

/** `/active` counts sessions seen in the last 5 minutes (umami-software/umami@v3.1.0:src/queries/sql/getActiveVisitors.ts). */
export const ACTIVE_WINDOW_MS = 5 * 60_000

/**
 * Filters that send a ClickHouse report to the `website_event` table itself; without any of them
 * `/stats`, `/pageviews` and `/metrics` read `website_event_stats_hourly` (umami-software/umami@v3.1.0:
 * src/lib/constants.ts `EVENT_COLUMNS`; src/queries/sql/getWebsiteStats.ts, pageviews/getPageviewStats.ts,
 * sessions/getSessionStats.ts, pageviews/getPageviewMetrics.ts, sessions/getSessionMetrics.ts).
 */
export const EVENT_COLUMNS = [
  'path',
  'entry',
  'exit',
  'referrer',
  'domain',
  'title',
  'query',
  'event',
  'tag',
  'hostname',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmContent',
  'utmTerm',
] as const

/**
 * The analytics database behind the emulated server. Umami Cloud runs ClickHouse: its usage metering
 * query exists for ClickHouse only (umami-software/umami@v3.1.0:src/queries/sql/events/getEventUsage.ts,
 * `[PRISMA]: notImplemented`); a self-hosted server runs PostgreSQL unless CLICKHOUSE_URL is set
 * (src/lib/db.ts, `runQuery`).
 */
export type UmamiDatabase = 'postgresql' | 'clickhouse'

/** A private app token as HubSpot prints them (`pat-<region>-<uuid>`). */
export const DEFAULT_HUBSPOT_TOKEN = 'pat-na1-11111111-2222-4333-8444-555555555555'
export const DEFAULT_PORTAL_ID = 4_815_162

/** Where the seeded contacts' timestamps end. */
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00Z'

/**
 * Requests per rolling 10 seconds for an app on a Free or Starter account, and per day
 * (https://developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines, "Apps" table).
 */
export const TEN_SECONDLY_LIMIT = 100
export const TEN_SECONDS_MS = 10_000
export const DAILY_LIMIT = 250_000

/**
 * The emulated account's time zone (Account Info's `timeZone`). The daily limit is counted per day in it:
 * "Daily limits reset at midnight based on your time zone setting"
 * (https://developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
 */
export const ACCOUNT_TIME_ZONE = 'US/Eastern'

/**
 * CRM search: four requests per second (https://developers.hubspot.com/changelog/crm-search-api-rate-limit-increase),
 * counted per account ("five requests per second per account": https://developers.hubspot.com/docs/api-reference/search/guide,
 * "Limits"); the stricter figure of the two.
 */
export const SEARCH_PER_SECOND = 4

/**
 * How long a write takes to show in CRM search: "it may take a few moments for newly created or updated CRM
 * objects to appear in search results" (https://developers.hubspot.com/docs/guides/api/crm/search,
 * "Limitations"). HubSpot gives no number; a few seconds is what its developers report, and what a connector
 * must cope with (a write read back through search misses the record).
 */
export const SEARCH_LAG_MS = 3000

/** OAuth access tokens last 30 minutes (`expires_in: 1800`, https://developers.hubspot.com/docs/guides/apps/authentication/working-with-oauth). */
export const ACCESS_TOKEN_TTL_S = 1800

export const DEFAULT_GREENHOUSE_CLIENT_ID = 'greenhouse_emulator_client'
export const DEFAULT_GREENHOUSE_CLIENT_SECRET = 'greenhouse_emulator_client_secret'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/**
 * `per_page` is set on the first request only (https://harvestdocs.greenhouse.io/docs/pagination); 1-500,
 * else 422 ("per_page outside 1-500", airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, error_handler). Default 100: the
 * v3 reference's `per_page` "integer, 1 to 500, Defaults to 100"
 * (https://harvestdocs.greenhouse.io/reference/get_v3-rejection-details, the same on every list).
 */
export const MAX_PER_PAGE = 500
export const DEFAULT_PER_PAGE = 100

/**
 * How long a cursor works after it was issued. Greenhouse's cursors expire: Airbyte's v3 source fails on a 422
 * for "a cursor combined with other query parameters, an expired cursor, or per_page outside 1-500"
 * (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml,
 * error_handler). How long one lasts is not documented in anything we could read: 15 minutes is ours, shorter
 * than a reader that keeps cursors for an hour would hope. `state.expireCursors()` ends every cursor issued so far.
 */
export const DEFAULT_CURSOR_TTL_MS = 15 * 60_000

/** "Access Token: 1 hour" (https://harvestdocs.greenhouse.io/docs/harvest-partner-oauth, Key Token Lifetimes). */
export const TOKEN_LIFETIME_MS = 60 * 60 * 1000

/**
 * A fixed window of 30 seconds, 50 calls, reset announced in `X-RateLimit-Reset` (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml: api_budget
 * FixedWindowCallRatePolicy call_limit 50, period PT30S). v3's own guide
 * (https://harvestdocs.greenhouse.io/docs/api-rate-limiting) was not readable to us.
 */
export const RATE_WINDOW_MS = 30_000
export const DEFAULT_RATE_LIMIT = 50

/**
 * The scopes the emulated endpoints need: `harvest:<resource>:list` (the naming of
 * https://harvestdocs.greenhouse.io/docs/harvest-partner-oauth, Step 1; `harvest:sources:list` and
 * `harvest:rejection_reasons:list` as the v3 reference names them, per the endpoint inventory in
 * samvangelos' notes quoted below, and the Harvest V3 credential permissions "Rejection reasons" of
 * public v3 integrations).
 */
export const SCOPES = [
  'harvest:applications:list',
  'harvest:offers:list',
  'harvest:sources:list',
  'harvest:rejection_reasons:list',
] as const

/**
 * Application `status` in a RESPONSE: "`in_process` for active candidates, `rejected`, `hired` ..., and
 * `converted` for prospect applications that have been promoted" (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml,
 * schemas.applications, `status`).
 */
export const APPLICATION_STATUSES = ['in_process', 'rejected', 'hired', 'converted'] as const
/**
 * The `status` FILTER of GET /v3/applications takes another enumeration: `rejected`, `hired`, `converted`,
 * `active` ("`active` returns applications still in process"), so `status=in_process` is not a filter value
 * (the v3 reference's query enum, quoted in a public field inventory of the v3 OpenAPI files,
 * "0015 · GET /v3/applications": query `status` enum `["rejected","hired","converted","active"]`, response
 * enum `[...,"in_process"]`). Another value is a 422 here (ASSUMPTION: the reference's enum is validated
 * like the other parameters).
 */
export const APPLICATION_STATUS_FILTERS: Readonly<Record<string, (typeof APPLICATION_STATUSES)[number]>> = {
  active: 'in_process',
  rejected: 'rejected',
  hired: 'hired',
  converted: 'converted',
}
/**
 * Offer `status`: `Created`, `Accepted`, `Rejected`, `Deprecated`, capitalized ("status (enum
 * `Created|Accepted|Rejected|Deprecated`, capitalized)", the same inventory of the v3 reference, "0130 · GET
 * /v3/offers").
 */
export const OFFER_STATUSES = ['Created', 'Accepted', 'Rejected', 'Deprecated'] as const

/** Ids one `*_ids` filter takes (see routes.ts). */
export const MAX_IDS = 50

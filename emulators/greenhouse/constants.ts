export const DEFAULT_GREENHOUSE_CLIENT_ID = 'greenhouse_emulator_client'
export const DEFAULT_GREENHOUSE_CLIENT_SECRET = 'greenhouse_emulator_client_secret'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/**
 * `per_page` is set on the first request only (https://harvestdocs.greenhouse.io/docs/pagination); its
 * bounds and default are not in the v3 pages we could read. ASSUMPTION: v1's 1-500, default 100.
 */
export const MAX_PER_PAGE = 500
export const DEFAULT_PER_PAGE = 100

/** "Access Token: 1 hour" (https://harvestdocs.greenhouse.io/docs/harvest-partner-oauth, Key Token Lifetimes). */
export const TOKEN_LIFETIME_MS = 60 * 60 * 1000

/**
 * ASSUMPTION: v3's rate-limit guide (https://harvestdocs.greenhouse.io/docs/api-rate-limiting) was not
 * readable to us; v1's 50 requests per 10 seconds with X-RateLimit-* headers is kept.
 */
export const RATE_WINDOW_MS = 10_000
export const DEFAULT_RATE_LIMIT = 50

/** The scopes the emulated endpoints need: `harvest:<resource>:list` (the naming of https://harvestdocs.greenhouse.io/docs/harvest-partner-oauth, Step 1). */
export const SCOPES = ['harvest:applications:list', 'harvest:offers:list'] as const

/** Application `status` (the `status=hired` filter of https://harvestdocs.greenhouse.io/docs/list-endpoints; the other values as in v1). */
export const APPLICATION_STATUSES = ['active', 'rejected', 'hired', 'converted'] as const
/** Offer `status`, as in v1 (ASSUMPTION: unchanged in v3). */
export const OFFER_STATUSES = ['unresolved', 'accepted', 'rejected', 'deprecated'] as const

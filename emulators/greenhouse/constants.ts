export const DEFAULT_GREENHOUSE_API_KEY = 'greenhouse_emulator_harvest_key'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/** `per_page`: "Must be an integer between 1 and 500. Defaults to 100." (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, _offers.md). */
export const MAX_PER_PAGE = 500
export const DEFAULT_PER_PAGE = 100

/** "limited to the amount specified in the returned X-RateLimit-Limit header, per 10 seconds" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Rate limiting); 50 in its example. */
export const RATE_WINDOW_MS = 10_000
export const DEFAULT_RATE_LIMIT = 50

/** Application `status`: "One of: active, rejected, hired, converted." (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, noteworthy attributes). */
export const APPLICATION_STATUSES = ['active', 'rejected', 'hired', 'converted'] as const
/** Offer `status`: "One of: unresolved, accepted, rejected, deprecated." (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_offers.md). */
export const OFFER_STATUSES = ['unresolved', 'accepted', 'rejected', 'deprecated'] as const

export const DEFAULT_LEVER_API_KEY = 'lever_emulator_api_key'
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/** `limit`: "between 1 and 100 ... defaults to 100" (https://hire.lever.co/developer/documentation#pagination). */
export const MAX_LIMIT = 100

/**
 * "10 requests per second ... bursts up to 20 requests per second", a token bucket per API key
 * (https://hire.lever.co/developer/documentation#rate-limits).
 */
export const DEFAULT_RATE_PER_SECOND = 10
export const DEFAULT_BURST = 20

export const DEFAULT_API_KEY = 'amp0123456789abcdef0123456789abcd'
export const DEFAULT_SECRET_KEY = 'ampsecret0123456789abcdef01234567'
export const DEFAULT_APP_ID = 987654
export const DEFAULT_DATA_UNTIL = '2024-05-31T00:00:00Z'
/** The export refuses longer ranges. */
export const EXPORT_MAX_HOURS = 365 * 24

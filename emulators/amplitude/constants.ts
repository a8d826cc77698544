export const DEFAULT_API_KEY = 'amp0123456789abcdef0123456789abcd'
export const DEFAULT_SECRET_KEY = 'ampsecret0123456789abcdef01234567'
export const DEFAULT_APP_ID = 987654
export const DEFAULT_DATA_UNTIL = '2024-05-31T00:00:00Z'
/** The export refuses longer ranges (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md: "The max period you can query at once is 365 days"). */
export const EXPORT_MAX_HOURS = 365 * 24
/** An upload hour is exported 3 hours after it starts (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md: sent 8-9 PM, available 11 PM). */
export const EXPORT_AVAILABLE_AFTER_MS = 3 * 3_600_000
/** The export's size ceiling (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md: "Size limit is 4GB"). */
export const EXPORT_MAX_BYTES = 4 * 1024 ** 3
/** Dashboard REST group-by values: default 100, at most 1000 (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, `limit`). */
export const SEGMENTATION_DEFAULT_LIMIT = 100
export const SEGMENTATION_MAX_LIMIT = 1000
/** Hourly segmentation covers at most 7 days (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, `i`). */
export const SEGMENTATION_HOURLY_MAX_DAYS = 7
/** Daily segmentation covers at most 365 days (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, `i`). */
export const SEGMENTATION_DAILY_MAX_DAYS = 365

/**
 * String values (ids, event and user property values) longer than this are cut, not refused: "All string
 * values, like `user_id`, event, or user property values, have a character limit of 1024 characters"
 * (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md) and "Amplitude truncates any values
 * exceeding these limits" (…:content/collections/faq_and_troubleshooting/en/limits.md).
 */
export const STRING_MAX_CHARS = 1024

/** A value with every string in it cut to STRING_MAX_CHARS characters, as Amplitude stores it. */
export function cutStrings<T>(value: T): T {
  if (typeof value === 'string') {
    const chars = [...value]
    return (chars.length > STRING_MAX_CHARS ? chars.slice(0, STRING_MAX_CHARS).join('') : value) as T
  }
  if (Array.isArray(value)) return value.map(cutStrings) as T
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v)])) as T
  return value
}

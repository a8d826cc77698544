import type { StringLimit } from '../string-limits.js'

/**
 * Amplitude cuts string values (user ids, event and user property values) to 1024 characters: "All string
 * values, like `user_id`, event, or user property values, have a character limit of 1024 characters"
 * (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md) and "Amplitude truncates any values
 * exceeding these limits" (…:content/collections/faq_and_troubleshooting/en/limits.md).
 */
export const AMPLITUDE_STRINGS: StringLimit = { provider: 'Amplitude', max: 1024, measure: 'characters' }

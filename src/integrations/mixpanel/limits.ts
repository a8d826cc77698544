import type { StringLimit } from '../string-limits.js'

/**
 * Mixpanel cuts event property names and values to 255 characters ("We truncate all strings down to 255
 * characters": mixpanel/docs@ba22906:reference/import-events.mdx).
 */
export const MIXPANEL_EVENT_STRINGS: StringLimit = { provider: 'Mixpanel', max: 255, measure: 'characters' }

/**
 * Mixpanel cuts profile values to 255 bytes ("String properties have a limit of 255 bytes":
 * mixpanel/docs@ba22906:docs/data-structure/property-reference/data-type.mdx, to which user-profiles.mdx refers).
 */
export const MIXPANEL_PROFILE_STRINGS: StringLimit = { provider: 'Mixpanel', max: 255, measure: 'bytes' }

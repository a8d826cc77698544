export const DEFAULT_PROJECT_ID = '1234567'
export const DEFAULT_SERVICE_ACCOUNT = {
  username: 'unigate.sa.mp-service-account',
  secret: 'mp-sa-secret-0123456789',
}
export const DEFAULT_PROJECT_TOKEN = 'mptoken0123456789abcdef0123456789'
export const DEFAULT_DATA_UNTIL = '2024-05-31T00:00:00Z'
export const DEFAULT_TIMEZONE = 'UTC'
/** Within the "less than 1 minute delay" Mixpanel states for its user views (see state.ts). */
export const DEFAULT_PROFILE_LAG_MS = 30_000
/** Engage's page size: mixpanel/docs@ba22906:openapi/query.openapi.yaml (`page_size: 1000`). */
export const ENGAGE_PAGE_SIZE = 1000
/** Export `limit` ceiling: mixpanel/docs@ba22906:openapi/export.openapi.yaml (`limit`). */
export const EXPORT_MAX_LIMIT = 100_000
/** `/import` batch ceiling: mixpanel/docs@ba22906:reference/import-events.mdx (2000 events, 10MB). */
export const IMPORT_MAX_EVENTS = 2000
/** `/segmentation` `limit`: default 60, maximum 10,000 (mixpanel/docs@ba22906:openapi/query.openapi.yaml). */
export const SEGMENTATION_DEFAULT_LIMIT = 60
export const SEGMENTATION_MAX_LIMIT = 10_000
/** `/events/names`: "the most common events over the last 31 days", `limit` "Defaults to 255" (mixpanel/docs@ba22906:openapi/query.openapi.yaml). */
export const EVENT_NAMES_DAYS = 31
export const EVENT_NAMES_DEFAULT_LIMIT = 255
/**
 * Where the emulator "geolocates" a caller that does not send `ip=0` to `/engage`: the location of the
 * server that made the request, as Mixpanel would (https://docs.mixpanel.com/docs/tracking-best-practices/geolocation).
 */
export const SERVER_LOCATION = { $city: 'Ashburn', $region: 'Virginia', $country_code: 'US' }

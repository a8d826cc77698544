export const DEFAULT_PROJECT_ID = '1234567'
export const DEFAULT_SERVICE_ACCOUNT = {
  username: 'unigate.sa.mp-service-account',
  secret: 'mp-sa-secret-0123456789',
}
export const DEFAULT_PROJECT_TOKEN = 'mptoken0123456789abcdef0123456789'
export const DEFAULT_DATA_UNTIL = '2024-05-31T00:00:00Z'
/** Engage's page size at Mixpanel. */
export const ENGAGE_PAGE_SIZE = 1000
export const EXPORT_MAX_LIMIT = 100_000
export const IMPORT_MAX_EVENTS = 2000

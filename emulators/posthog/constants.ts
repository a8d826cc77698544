/** Personal API key the emulator accepts unless told otherwise (`Authorization: Bearer phx_…`). */
export const DEFAULT_PERSONAL_API_KEY = 'phx_emulator_key'
/** Project API key of the first project (`api_key` in capture bodies). */
export const DEFAULT_PROJECT_API_KEY = 'phc_emulator_project_key'
/** The seeded data spans the 30 days before this instant, so it does not depend on when the emulator starts. */
export const DEFAULT_DATA_UNTIL = '2025-01-01T00:00:00.000Z'
export const DATA_SPAN_DAYS = 30

/**
 * HogQL answers 100 rows when the query has no LIMIT, and never more than 50 000
 * (PostHog/posthog@master:posthog/hogql/constants.py `DEFAULT_RETURNED_ROWS`, `MAX_SELECT_RETURNED_ROWS`).
 */
export const HOGQL_DEFAULT_LIMIT = 100
export const HOGQL_MAX_LIMIT = 50_000

/** DRF page size for REST lists (projects, persons): posthog/api/person.py `DEFAULT_PAGE_LIMIT = 100`. */
export const REST_DEFAULT_LIMIT = 100

export const DEFAULT_BAMBOOHR_API_KEY = 'bamboohr_emulator_key'
export const DEFAULT_BAMBOOHR_DOMAIN = 'acme'
/** The seeded data's "now": last changes and hire dates fall before it. */
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00.000Z'

/**
 * Most fields one request may name, in a custom report or an employee read
 * (BambooHR/bhr-api-php@a6a10ca:specs/public.yaml, request-custom-report and get-employee: "The maximum
 * number of fields per request is 400").
 */
export const MAX_FIELDS = 400

/**
 * Report formats `format` may name, case-insensitive, and the exact Accept values that choose one without it;
 * anything else is 404 (specs/public.yaml, request-custom-report).
 */
export const REPORT_FORMATS = ['json', 'xml', 'csv', 'xls', 'pdf'] as const
export const REPORT_ACCEPTS: Readonly<Record<string, string>> = {
  'application/json': 'json',
  'text/xml': 'xml',
  'text/csv': 'csv',
  'application/pdf': 'pdf',
  'application/vnd.ms-excel': 'xls',
}

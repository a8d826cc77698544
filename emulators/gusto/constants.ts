/** The API version the emulator speaks (Gusto OpenAPI `X-Gusto-API-Version` enum). */
export const GUSTO_API_VERSION = '2025-06-15'

/** Access tokens "expire 2 hours after they are issued" (https://docs.gusto.com/embedded-payroll/docs/company-access-tokens). */
export const ACCESS_TOKEN_TTL_SECONDS = 7200

/**
 * 200 requests per minute per OAuth grant, in a 60-second window that opens with the first call
 * (https://docs.gusto.com/app-integrations/docs/rate-limits, https://docs.gusto.com/embedded-payroll/docs/rate-limits).
 */
export const RATE_LIMIT = 200
export const RATE_WINDOW_SECONDS = 60

/** `per` when a paged list is asked for a page without it: "For majority of endpoints will default to 25". */
export const DEFAULT_PER = 25
/** Payroll employee compensations: "Results are paginated, with a maximum page size of 100". */
export const MAX_PAYROLL_PER = 100

/** The client the emulator knows unless told otherwise, with every read scope the connector needs. */
export const DEFAULT_GUSTO_CLIENT = {
  clientId: 'unigate-gusto-client',
  clientSecret: 'unigate-gusto-secret',
  redirectUris: ['http://127.0.0.1/oauth/callback'],
  name: 'Unigate',
}

/** Each read endpoint's scope, as its operation in Gusto's OpenAPI names it (`scope: ...`). */
export const READ_SCOPES = [
  'companies:read',
  'employees:read',
  'departments:read',
  'payrolls:read',
  'company_benefits:read',
  'employee_benefits:read',
  'garnishments:read',
  'jobs:read',
  'compensations:read',
] as const

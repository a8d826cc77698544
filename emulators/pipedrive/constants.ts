/** A personal API token: 40 hexadecimal characters, as Pipedrive prints them. */
export const DEFAULT_PIPEDRIVE_TOKEN = '659c9fddb16335e48cc67114694b52074e812e03'
export const DEFAULT_COMPANY_ID = 7_654_321
export const DEFAULT_DATA_UNTIL = '2024-06-01T00:00:00Z'

/**
 * Requests per 2-second window per API token on the Essential plan (the lowest), per OAuth token on it
 * (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting).
 */
export const API_TOKEN_BURST = 20
export const OAUTH_TOKEN_BURST = 80
/**
 * Searches per 2-second window per token, on every plan and for both kinds of token
 * (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, "Limits").
 */
export const SEARCH_BURST = 10
export const WINDOW_MS = 2000

/** Deleted persons stay 30 days before they are gone (Persons API, "Delete a person"). */
export const DELETED_KEPT_MS = 30 * 86_400_000

/**
 * The company's daily token budget: "each request consumes a certain number of tokens from a set daily
 * allowance, or 'budget.' Once this budget is exhausted, further requests will be temporarily blocked until
 * the budget resets at the start of the next day", shared "among all users within that account", of
 * "30,000 base tokens × subscription plan multiplier × number of seats" (Lite 1, Growth 2, Premium 5,
 * Ultimate 7); it "resets at midnight at server's timezone", which Pipedrive does not name (the emulator
 * uses UTC) (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, "Tokens Daily Budget", read
 * in the copy at fav83/whatsapp2pipe@aa6f18b3c4460d2248c1e9132dcd833d19a8299b:
 * Docs/External/Pipedrive/docs/core-api-concepts-rate-limiting.md). Default: one seat on Lite.
 */
export const DAILY_TOKEN_BUDGET = 30_000

/**
 * The daily fair-usage count of POST and PUT requests per user, reset at midnight UTC: "a maximum of 10 000
 * POST/PUT requests daily per user per 24 hours" (https://developers.pipedrive.com/changelog/post/daily-api-limit-for-postput-endpoints,
 * 2019), shown to API-token requests in `x-daily-requests-left`: "how many requests you can still make to
 * `POST`/`PUT` endpoints during the ongoing day (calculated in UTC). Applicable only to `api_token` requests"
 * (rate-limiting page, "HTTP headers and response codes"). Pipedrive "may start blocking" past it on multiple
 * occasions, with no status named: the emulator only counts. It is not the company's token budget.
 */
export const DAILY_POST_PUT_REQUESTS = 10_000

/**
 * What each endpoint the emulator serves costs, as Pipedrive's OpenAPI descriptions state it in
 * `x-token-cost` (copies at fav83/whatsapp2pipe@aa6f18b3c4460d2248c1e9132dcd833d19a8299b:
 * Docs/External/Pipedrive/docs/api/openapi-v2.yaml and openapi-v1.yaml). API v2 costs half of v1's ("API v2
 * endpoints are performance-optimized, resulting in lower token costs", rate-limiting page): a v2 list 10
 * (v1 20), one v2 record 1 (v1 2), a v2 add or update 5, a v2 delete 3, a v2 search 20 (v1 40).
 */
export const TOKEN_COST: Readonly<Record<string, number>> = {
  'GET /api/v2/persons': 10,
  'POST /api/v2/persons': 5,
  'GET /api/v2/persons/search': 20,
  'GET /api/v2/persons/:id': 1,
  'PATCH /api/v2/persons/:id': 5,
  'DELETE /api/v2/persons/:id': 3,
  'GET /api/v1/users/me': 2,
  'GET /api/v1/webhooks': 10,
  'POST /api/v1/webhooks': 10,
  'DELETE /api/v1/webhooks/:id': 6,
}

/** A path the table does not name (an unknown route, answered 404) is charged as one v1 record (ours). */
export const UNLISTED_TOKEN_COST = 2

/**
 * An OAuth app's scopes when a test registers it without any: `base` ("the default permission that is always
 * enabled for all apps") and `contacts:full`
 * (https://pipedrive.readme.io/docs/marketplace-scopes-and-permissions-explanations).
 */
export const DEFAULT_APP_SCOPES: readonly string[] = ['base', 'contacts:full']

/**
 * The scopes an OAuth access token needs per endpoint, any one of them: the `oauth2` security of each
 * operation in Pipedrive's OpenAPI descriptions (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77:
 * src/versions/v2/api/persons-api.ts, src/versions/v1/api/users-api.ts and webhooks-api.ts, `setOAuthToObject`),
 * and for webhooks also `webhooks:read` (list) and `webhooks:full` ("Create, read and delete webhooks":
 * https://pipedrive.readme.io/docs/marketplace-scopes-and-permissions-explanations). API tokens have no scopes.
 */
export const OAUTH_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'GET /api/v2/persons': ['contacts:read', 'contacts:full'],
  'POST /api/v2/persons': ['contacts:full'],
  'GET /api/v2/persons/search': ['contacts:read', 'contacts:full', 'search:read'],
  'GET /api/v2/persons/:id': ['contacts:read', 'contacts:full'],
  'PATCH /api/v2/persons/:id': ['contacts:full'],
  'DELETE /api/v2/persons/:id': ['contacts:full'],
  'GET /api/v1/users/me': ['base'],
  'GET /api/v1/webhooks': ['admin', 'webhooks:read', 'webhooks:full'],
  'POST /api/v1/webhooks': ['admin', 'webhooks:full'],
  'DELETE /api/v1/webhooks/:id': ['admin', 'webhooks:full'],
}

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
export const WINDOW_MS = 2000

/** Deleted persons stay 30 days before they are gone (Persons API, "Delete a person"). */
export const DELETED_KEPT_MS = 30 * 86_400_000

/**
 * The company's daily token budget: "each request consumes a certain number of tokens from a set daily
 * allowance, or 'budget.' Once this budget is exhausted, further requests will be temporarily blocked until
 * the budget resets at the start of the next day", and the budget "is shared among all users within the
 * account" (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, "Token-Based Rate Limiting";
 * https://pipedrive.readme.io/docs/guide-for-optimizing-api-usage). Its size, 30,000 base tokens x plan
 * multiplier x seats, and the costs below could not be read from Pipedrive's page here: they are a third-party
 * summary's (https://rate-limits.apis.io/rate-limits/pipedrive/pipedrive-rate-limits/), for one seat on the
 * lowest plan (multiplier 1). Pipedrive's API reference states each endpoint's own cost.
 */
export const DAILY_TOKEN_BUDGET = 30_000
export const TOKEN_COST = { get: 2, list: 20, write: 10, search: 40 } as const

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

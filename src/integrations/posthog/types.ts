/** PostHog's wire shapes, as far as the integration reads them; everything else passes through in `raw`. */

/** A project as lists (basic serializer) and detail views (full serializer) return it. */
export interface PosthogProject extends Record<string, unknown> {
  readonly id: number
  readonly organization?: string
  readonly name?: string
  readonly timezone?: string
  readonly base_currency?: string
  readonly api_token?: string
  readonly created_at?: string
  readonly updated_at?: string
}

export interface PosthogPage<T> {
  readonly count?: number
  readonly next: string | null
  readonly previous: string | null
  readonly results: T[]
}

/**
 * A person. List rows (`get_serialized_people`) have `id` = the uuid and distinct ids in database order;
 * the detail view (`PersonSerializer`) has the numeric `id` and identified ids first. Neither has a last-seen
 * time.
 */
export interface PosthogPerson extends Record<string, unknown> {
  readonly id: number | string
  readonly uuid: string
  readonly name?: string
  readonly distinct_ids: string[]
  readonly properties: Record<string, unknown>
  readonly created_at?: string
}

/**
 * An event: the legacy events API gives `id`, a HogQL row zipped by the integration gives `uuid`. Property
 * values read through HogQL are strings (HogQL returns JSON properties as text).
 */
export interface PosthogEvent extends Record<string, unknown> {
  readonly id?: string
  readonly uuid?: string
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: Record<string, unknown>
}

export interface HogQLResponse {
  readonly columns: string[]
  readonly results: unknown[][]
  readonly hasMore?: boolean
  /** The project's time zone the query ran in (`CachedHogQLQueryResponse.timezone`, posthog/schema.py). */
  readonly timezone?: string
}

/** One event for the capture endpoint. `uuid` is ours: capture answers `{"status":"Ok"}` and never an id. */
export interface PosthogCapture {
  readonly api_key: string
  readonly event: string
  readonly distinct_id: string
  readonly uuid: string
  readonly timestamp: string
  readonly properties: Record<string, unknown>
}

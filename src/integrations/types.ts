import type { Category, CommonListParam, UnifiedRecord } from '../models/index.js'
import type { CursorMemory } from './cursors.js'
import type { ProviderClient } from './http-client.js'

/** Decrypted credentials of one connection, as the integration's auth fields name them. */
export type Credentials = Readonly<Record<string, string | undefined>>

export interface AuthField {
  readonly name: string
  readonly label: string
  /** Secret fields are never echoed back; non-secret ones (a region, a host) may be shown. */
  readonly secret: boolean
  readonly required: boolean
  readonly options?: readonly string[]
  readonly description?: string
}

export interface ApiKeyAuth {
  readonly kind: 'api_key'
  readonly fields: readonly AuthField[]
}

/** What a cheap verification call learned about the account, kept with the connection (not secret). */
export type ConnectionSettings = Readonly<Record<string, string | undefined>>

export interface RetryPolicy {
  /** Statuses worth retrying for idempotent requests. */
  readonly on: readonly number[]
  /** Response headers that say how long to wait, in order of preference. */
  readonly afterHeaders: readonly string[]
}

/** Unified list parameters after parsing and validation by the engine. */
export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly updated_gte?: Date
  readonly sort?: string
  readonly order?: 'asc' | 'desc'
  readonly query?: string
  /** Object filters (`property_id`, `start_gte`...): strings, or Dates for date filters. */
  readonly filters: Readonly<Record<string, string | Date>>
}

/** Which fields the caller wants, already decided against the slow-field rules (spec section 7). */
export interface FieldPlan {
  /** True when the response will carry the whole `raw` object. */
  readonly raw: boolean
  /** Provider field names asked for with `raw.<name>` (some providers return a field only when named). */
  readonly rawNames: readonly string[]
  /** The slow fields (unified names or `raw.<name>`) that must be fetched for this request. */
  readonly slow: ReadonlySet<string>
}

export interface HandlerContext {
  readonly client: ProviderClient
  readonly credentials: Credentials
  readonly settings: ConnectionSettings
  readonly connectionId: string
  readonly fields: FieldPlan
  /** The decoded `raw` query parameter: extra parameters for the provider request. */
  readonly rawParams: Readonly<Record<string, string>>
  /**
   * Provider cursors remembered by offset. Scope keys with `ctx.connectionId` and the query's identity,
   * so page N of a cursor-paged provider costs one call once page N-1 has been read.
   */
  readonly cursors: CursorMemory
}

export type WriteBody = Readonly<Record<string, unknown>>

export interface ObjectHandlers {
  list?(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]>
  get?(ctx: HandlerContext, id: string): Promise<UnifiedRecord>
  create?(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord>
  update?(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord>
  patch?(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord>
  remove?(ctx: HandlerContext, id: string): Promise<void>
  /** The common list parameters the provider can honour; the others answer 501. */
  readonly listParams: readonly CommonListParam[]
  /** The object filters the provider can honour; the others answer 501. */
  readonly filters: readonly string[]
  /** Allowed values of `sort` (unified field names). */
  readonly sortFields?: readonly string[]
  /** Fields (unified names or `raw.<name>`) that cost an extra provider call. */
  readonly slowFields?: readonly string[]
}

export interface IntegrationDefinition {
  readonly type: string
  readonly name: string
  readonly categories: readonly Category[]
  readonly description: string
  readonly webUrl: string
  readonly apiDocsUrl: string
  readonly color?: string
  readonly rateLimitDescription?: string
  readonly auth: ApiKeyAuth
  /** The provider's API base address for this connection (region, self-hosted host). */
  baseUrl(credentials: Credentials): string
  /** Headers that authenticate a request to the provider (also used by passthrough). */
  authHeaders(credentials: Credentials): Record<string, string>
  /** A cheap call proving the credentials work; returns settings to keep with the connection. */
  verify(client: ProviderClient, credentials: Credentials): Promise<ConnectionSettings>
  readonly retry: RetryPolicy
  readonly objects: Readonly<Record<string, ObjectHandlers>>
}

export function defineIntegration(definition: IntegrationDefinition): IntegrationDefinition {
  return definition
}

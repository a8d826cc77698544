import { type TSchema, Type } from '@sinclair/typebox'

/** ISO-8601 date-time, always emitted as `Date.toISOString()` (UTC with `Z`). */
export const DateTime = Type.String({ format: 'date-time' })

/** `metadata` is a map of names to objects (the SDK rejects scalar values, sdk-contract R10). */
export const Metadata = Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }))

/** The provider's original record. */
export const Raw = Type.Record(Type.String(), Type.Unknown())

/** An enum that is closed on write but tolerated open on read (sdk-contract R9). */
export function OpenEnum<const T extends readonly string[]>(values: T, description: string) {
  return Type.String({ description: `${description} One of: ${values.join(', ')}.`, examples: [...values] })
}

export const CATEGORIES = ['analytics', 'hris', 'ats', 'crm'] as const
export type Category = (typeof CATEGORIES)[number]

export type Operation = 'list' | 'get' | 'create' | 'update' | 'patch' | 'remove'
export const OPERATIONS: readonly Operation[] = ['list', 'get', 'create', 'update', 'patch', 'remove']

/** `limit` when a list is asked without one, and the largest it may be, on every list of the server. */
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 1000

/**
 * The largest `offset` any list accepts (unified objects, tools, connections, webhooks, API calls). Many
 * providers page by cursor, so reaching an offset costs provider calls in proportion to it: an unbounded
 * offset would let one request keep a connector busy for as long as it likes.
 */
export const MAX_OFFSET = 100_000

/** The `limit` parameter of every list route, so each route validates (and documents) the same bound. */
export const LimitParam = (description = `Page size, from 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}.`) =>
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description })

/** The `offset` parameter of every list route. */
export const OffsetParam = (description = `Number of records to skip, from 0 to ${MAX_OFFSET}.`) =>
  Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description })

/** The list parameters every list endpoint accepts (spec 4.2). */
export const COMMON_LIST_PARAMS = ['limit', 'offset', 'updated_gte', 'sort', 'order', 'query'] as const
export type CommonListParam = (typeof COMMON_LIST_PARAMS)[number]

/** How a filter's value is parsed before it reaches an integration. */
export type FilterKind = 'string' | 'date'

export interface ObjectModel {
  /** `analytics_event`: the object type used in webhooks, support matrix and tool names. */
  readonly objectType: string
  readonly category: Category
  /** Path segment: `/analytics/{connection_id}/{path}`. */
  readonly path: string
  /** Singular and plural names used in operation ids (`AnalyticsEvent`, `AnalyticsEvents`). */
  readonly singular: string
  readonly plural: string
  readonly schema: TSchema
  /** Fields a caller may send on create/update/patch (read-only ones are ignored). */
  readonly writeSchema: TSchema
  readonly operations: readonly Operation[]
  /** Object-specific list filters (spec 4.3-4.6, sdk-contract section 1). */
  readonly filters: Readonly<Record<string, FilterKind>>
  /** Fields holding personal data (removed by the tool server's `hide_sensitive`). */
  readonly personalFields: readonly string[]
  /** The model's field names, `raw` included: what `fields` may list. */
  readonly fieldNames: readonly string[]
}

export const READ_ONLY_FIELDS = ['id', 'created_at', 'updated_at'] as const

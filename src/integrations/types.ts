import type { Category, CommonListParam, UnifiedRecord } from '../models/index.js'
import type { ListCursors } from './cursors.js'
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

/**
 * A provider authorized with OAuth2. `fields` are what a connection keeps (an `access_token`, usually a
 * `refresh_token`, optionally the app's `client_id`/`client_secret` and an `api_url`), so a connection can
 * also be created from tokens the workspace already holds; the addresses and scopes drive the
 * authorization and refresh flows.
 */
export interface OAuth2Auth {
  readonly kind: 'oauth2'
  readonly fields: readonly AuthField[]
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly revokeUrl?: string
  /** Provider scopes each unified permission needs (`analytics_report_read` -> [...]). */
  readonly scopes: Readonly<Record<string, readonly string[]>>
  /** Whether the authorization request uses PKCE (code_challenge S256). */
  readonly pkce: boolean
  /** Scopes every authorization asks for whatever the permissions (identity, the verification call). */
  readonly alwaysScopes?: readonly string[]
  /** How the app authenticates at the token endpoint: form fields (default) or HTTP Basic (RFC 6749 2.3.1). */
  readonly tokenEndpointAuth?: 'client_secret_post' | 'client_secret_basic'
  /** Extra string fields of the token answer the connection keeps (Pipedrive's `api_domain`). */
  readonly tokenFields?: readonly string[]
}

/** How a connection's stored client obtains an access token by itself, without a user in the loop. */
export interface ClientCredentialsGrant {
  readonly tokenUrl: (credentials: Credentials) => string
  /** The client as HTTP Basic `id:secret` (RFC 6749 section 2.3.1). */
  readonly client: (credentials: Credentials) => { readonly id: string; readonly secret: string }
  /** Form parameters besides `grant_type` (a subject, a scope). */
  readonly form?: (credentials: Credentials) => Readonly<Record<string, string | undefined>>
  /** Lifetime assumed when the token answer names none. */
  readonly defaultLifetimeMs: number
  /** The provider's name in errors. */
  readonly providerName: string
}

/** What a cheap verification call learned about the account, kept with the connection (not secret). */
export type ConnectionSettings = Readonly<Record<string, string | undefined>>

export interface RetryPolicy {
  /** Statuses worth retrying for idempotent requests. */
  readonly on: readonly number[]
  /** Response headers that say how long to wait, in order of preference. */
  readonly afterHeaders: readonly string[]
  /**
   * Headers giving the wait in milliseconds, read when none of `afterHeaders` is present (HubSpot's 429
   * names only its rate-limit window, `X-HubSpot-RateLimit-Interval-Milliseconds`).
   */
  readonly afterMillisecondsHeaders?: readonly string[]
  /**
   * True when a refusal means the provider's daily quota is spent (HubSpot's 429 with `policyName` DAILY,
   * Pipedrive's 429 while its 2-second window still has room): it is not retried, whatever wait headers it
   * carries, and the caller is told when the quota resets (`dailyQuotaTimeZone`, `dailyQuotaWords`). `path`
   * is the refused request's, as the connector gave it.
   */
  readonly dailyQuotaSpent?: (
    status: number,
    body: unknown,
    headers: Readonly<Record<string, string | string[] | undefined>>,
    path: string,
  ) => boolean
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
  /**
   * The unified fields the caller listed in `fields`; undefined when every fast field goes out. A handler
   * may ask its provider for less (fewer columns, no unused properties) when it is set.
   */
  readonly listed?: ReadonlySet<string>
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
   * so page N of a cursor-paged provider costs one call once page N-1 has been read, on any process.
   */
  readonly cursors: ListCursors
  /**
   * For a list: a handler calls it when its provider said that no record follows the window it answers (a
   * full last page of Greenhouse carries no `rel="next"`), so that a reader of the whole list (a virtual
   * webhook's check) stops there instead of asking for one more window, which would read that page again.
   * Absent for a plain list; a handler that cannot tell never calls it, and its reader stops at a short window.
   */
  readonly onListEnd?: () => void
}

/**
 * What a handler's `checkList` may read besides the query: the connection's stored credentials and settings
 * and the request's raw parameters. A list's own context is one, so the list and its check can share a rule.
 */
export type ListCheckContext = Pick<HandlerContext, 'credentials' | 'settings' | 'rawParams'>

export type WriteBody = Readonly<Record<string, unknown>>

export interface ObjectHandlers {
  list?(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]>
  get?(ctx: HandlerContext, id: string): Promise<UnifiedRecord>
  create?(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord>
  update?(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord>
  patch?(ctx: HandlerContext, id: string, body: WriteBody): Promise<UnifiedRecord>
  remove?(ctx: HandlerContext, id: string): Promise<void>
  /**
   * The handler's own rules for a list query that need no provider call (a window the provider will not read
   * at once), as a 400 naming the parameter and what is allowed. The engine applies it after filling its
   * defaults, before every `list`, and to each list a webhook's checks will make when the webhook is created
   * or its filters or interval change, so a webhook no check could serve is refused at once rather than
   * failing every check. `nowMs` is the time the list is made at; `given` is what of the connection and the
   * request the rules may read without asking the provider (a webhook's lists carry no raw parameters).
   */
  checkList?(query: ListQuery, nowMs: number, given: ListCheckContext): void
  /** The common list parameters the provider can honour; the others answer 501. */
  readonly listParams: readonly CommonListParam[]
  /** The object filters the provider can honour; the others answer 501. */
  readonly filters: readonly string[]
  /** Allowed values of `sort` (unified field names). */
  readonly sortFields?: readonly string[]
  /** Fields (unified names or `raw.<name>`) that cost an extra provider call. */
  readonly slowFields?: readonly string[]
  /**
   * True when listing without filters returns every record that exists (not a time window), so a record
   * missing from it was deleted: virtual webhooks can then offer the `deleted` event for this object.
   */
  readonly listIsComplete?: boolean
  /**
   * True when the provider never changes a record once it lists it, but may first list it long after its
   * `created_at` (Amplitude's export serves an event hours after it happened): everything a virtual webhook
   * reads by `updated_gte` is then new and delivered as `created`, whatever its `created_at` says.
   */
  readonly recordsNeverChange?: boolean
  /**
   * How long after a change the provider's `updated_gte` list may first show it (HubSpot's search index
   * lags writes). Virtual webhooks then read back that far and skip records they already delivered, so a
   * change listed late is delivered, not lost between two checks.
   */
  readonly updatedGteLagMs?: number
  /**
   * The records of one provider page of this object's list, when a window of `limit` records is served whole
   * only at that size: a connector that keeps its cursors at its provider's page boundaries (Greenhouse,
   * pages of 500) reads the page a window falls in for every window, so a reader of the whole list asking for
   * windows of DEFAULT_LIMIT read each page five times. A virtual webhook's check reads the list in windows of
   * this many records (at most MAX_LIMIT); default DEFAULT_LIMIT.
   */
  readonly pageSize?: number
  /** Changes the provider pushes for this object (native webhooks); absent when it pushes none. */
  readonly nativeWebhooks?: NativeWebhookSupport
  /**
   * List parameters the provider cannot list without (the matrix says `supported-required`). The engine
   * fills a missing `property_id` when the connection has exactly one property (and no `session_id` or
   * `visitor_id` narrows the list instead), else answers 400 naming the connection's property ids; other
   * required parameters are refused by the handler, naming them.
   */
  readonly requiredParams?: readonly string[]
  /**
   * The provider lists this object by time window only: without `start_gte` or `updated_gte`, the engine
   * lists from 00:00 UTC this many days before `end_lt` (default: today) so a plain list still answers.
   */
  readonly defaultWindowDays?: number
  /**
   * Body fields `create` cannot do without (`outbound_fields` says `supported-required`); `raw.<name>` for
   * provider fields. The engine refuses a create missing one (400 naming it), after filling a missing
   * `property_id` when the connection has exactly one property.
   */
  readonly requiredFields?: readonly string[]
  /**
   * The provider needs a distinct id on every event: a create without `visitor_id` gets an anonymous one
   * (`anon-<uuid>`, as the providers' own client libraries do), returned as the event's `visitor_id`.
   */
  readonly anonymousVisitor?: boolean
  /**
   * Provider parameters Unigate sets itself on this object's calls (paging, the method called), each with what to use instead. A
   * `raw` parameter of one of these names is a 400 naming it, before any provider call: it would either
   * replace Unigate's own (a page read again and again without end) or be replaced by it (dropped unsaid).
   */
  readonly rawOwned?: Readonly<Record<string, string>>
}

export type WebhookEventName = 'created' | 'updated' | 'deleted'

export interface NativeSubscriptionRequest {
  readonly event: WebhookEventName
  /** Where the provider must send its calls (Unigate's receiving endpoint for this webhook). */
  readonly url: string
  /** A random per-subscription secret the provider must present on each call. */
  readonly secret: string
  /** A human-readable name for the subscription at the provider. */
  readonly name: string
}

/** What `subscriptionsAt` looks for: the receiver's address, and the name the subscription was made with. */
export type NativeSubscriptionTarget = Pick<NativeSubscriptionRequest, 'url' | 'name'>

/** One call the provider made to Unigate's receiving endpoint. */
export interface NativeCall {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: unknown
  /** The body exactly as received, for providers that sign it. */
  readonly rawBody: string
}

/** What a provider's call is read against: the webhook's event and its connection's credentials. */
export interface NativePush {
  /** Only changes of this event are delivered: a provider may push other actions on the same subscription. */
  readonly event: WebhookEventName
  readonly credentials: Credentials
  /** The connection's settings kept at verification (PostHog's `project_id`): what a call must agree with. */
  readonly settings: ConnectionSettings
}

/** What subscribing made at the provider, kept sealed with the webhook. */
export interface NativeSubscriptionResult {
  /** The provider's id for the subscription, handed back to `unsubscribe` (several joined by the provider's code). */
  readonly externalId: string
  /**
   * The signing key the provider issued, where it makes its own (BambooHR's `privateKey`; Lever's
   * `signatureToken`, one per Lever webhook, kept as a JSON map by Lever event): stored sealed instead of the
   * secret Unigate offered, and handed to `authenticate` as it was returned.
   */
  readonly secret?: string
}

/**
 * What a call names as changed, where the provider pushes ids only (Lever) or its body cannot be trusted
 * (Pipedrive: its credentials are readable by the company's users).
 */
export interface NativeChangedIds {
  readonly ids: readonly string[]
  /**
   * The call says the records are gone. Each is still read back: delivered as `{ id }` only when the provider's
   * `get` answers not found, and not at all while it still has the record, so a forged or replayed call
   * cannot report a live record deleted.
   */
  readonly removed: boolean
  /**
   * The provider answers 403 for one record the credentials may not see, and leaves such records out of its
   * lists (BambooHR's access levels): a 403 reading back one of these ids leaves that record out, as a list
   * does, instead of failing the whole call and counting against the webhook's health. A removed record is
   * not delivered then either: the provider still has it.
   */
  readonly forbiddenMeansHidden?: boolean
}

/** A call's one-time token, for providers whose signature covers a token and a time but not the body (Lever). */
export interface NativeCallToken {
  /** Unique to the call; a call whose token was already acknowledged is acknowledged again and delivers nothing. */
  readonly token: string
  /** Until when (ms since the epoch) the token is remembered: at least as long as `authenticate` admits the call. */
  readonly keepUntilMs: number
}

/**
 * What one call brings: the unified records of the webhook's event (shaped as the object's list handler
 * returns them), or only the ids of changed records, which Unigate reads back through the object's `get`
 * (as `GET /{category}/{connection}/{object}/{id}` would, with the webhook's `fields`).
 */
export type NativeChanges = readonly UnifiedRecord[] | NativeChangedIds

/** What the provider answers about a subscription Unigate made. */
export type NativeSubscriptionState = 'present' | 'gone'

/** A provider's push notifications for one object, used by native webhooks. */
export interface NativeWebhookSupport {
  /** Events the provider can push for the object. */
  readonly events: readonly WebhookEventName[]
  /** Creates the subscription at the provider. */
  subscribe(ctx: HandlerContext, request: NativeSubscriptionRequest): Promise<NativeSubscriptionResult>
  /** Removes it; a subscription already gone at the provider is not an error. */
  unsubscribe(ctx: HandlerContext, externalId: string): Promise<void>
  /**
   * Whether the provider still holds the subscription (`gone` when it, or any of several joined ids, is no
   * longer there: removed by an admin, or by the provider itself after failed calls). A provider that cannot
   * answer now (429, 5xx, a timeout) throws: that is never `gone`.
   */
  subscriptionState?(ctx: HandlerContext, externalId: string): Promise<NativeSubscriptionState>
  /**
   * The provider's ids of the subscriptions whose target is exactly `target.url` (Unigate's receiver of one
   * webhook, unique to it), read from the provider's own list of subscriptions. Called after a `subscribe`
   * that got no clear answer (a timeout, a reset connection, a 5xx): the provider may have made the
   * subscription all the same, and each id found is then removed with `unsubscribe`. `target.name` is the name
   * the subscription was made with, for a provider whose list can be searched by name only (PostHog), the URL
   * still being checked on each match. Throws when the provider cannot answer; an empty list means none.
   */
  subscriptionsAt?(ctx: HandlerContext, target: NativeSubscriptionTarget): Promise<readonly string[]>
  /**
   * True when the call proves it comes from this subscription (the provider's signature or the secret),
   * checked with the helpers of `native-auth.ts`. `nowMs` is the receiving time, for providers that sign a
   * timestamp.
   */
  authenticate(call: NativeCall, secret: string, nowMs: number): boolean
  /** The changes of `push.event` the call carries: records, or the ids of changed records. */
  records(call: NativeCall, push: NativePush): NativeChanges
  /**
   * The call's one-time token, where the provider's signature does not cover the body: remembered (in the
   * database, so every process sees it) once the call is acknowledged, so a captured call cannot be sent again.
   * A call answered otherwise (503) leaves no token behind, so the provider's retry of it still counts.
   */
  callToken?(call: NativeCall): NativeCallToken | undefined
}

/** One input of an external tool: where it goes in the provider request, and its JSON type. */
export interface ExternalToolParameter {
  readonly name: string
  readonly in: 'path' | 'query' | 'body'
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array'
  readonly description: string
  readonly required?: boolean
}

/**
 * A provider endpoint the unified model does not cover, offered to LLM agents as a tool that calls the
 * provider through passthrough (`include_external_tools=true`). `{name}` in `path` is filled from the
 * tool's arguments, else from the connection's settings (what verification learned, e.g. a project id).
 */
export interface ExternalTool {
  /** snake_case; the tool id is `<integration type>_<name>`. */
  readonly name: string
  /** What it returns and when to use it. */
  readonly description: string
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly path: string
  readonly parameters: readonly ExternalToolParameter[]
  /**
   * `read` when the call only reads provider data (whatever its method: a query may be a POST), `write`
   * when it may change anything. The connection must hold `<object>_read` (read) or `<object>_write`
   * (write) for every object in `objects`, or the tool is neither offered nor callable.
   */
  readonly access: 'read' | 'write'
  /** The unified objects whose provider data the tool reaches; a tool naming none is offered to no one. */
  readonly objects: readonly string[]
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
  readonly auth: ApiKeyAuth | OAuth2Auth
  /**
   * OAuth offered beside an API-key `auth` (PostHog takes both). The auth endpoint uses it when the
   * workspace configured an OAuth app for the integration, else the key page; connections may hold either
   * kind of credentials, so `authHeaders` must handle both. Read through `auth-methods.ts`, not directly.
   */
  readonly oauth?: OAuth2Auth
  /** The provider's API base address for this connection (region, self-hosted host). */
  baseUrl(credentials: Credentials): string
  /** Headers that authenticate a request to the provider (also used by passthrough). */
  authHeaders(credentials: Credentials): Record<string, string>
  /**
   * An OAuth 2.0 client credentials grant (RFC 6749 section 4.4) made from the connection's stored client:
   * every request then carries the bearer token it yields (cached until expiry, fetched again after a 401)
   * instead of `authHeaders`.
   */
  readonly clientCredentials?: ClientCredentialsGrant
  /** A cheap call proving the credentials work; returns settings to keep with the connection. */
  verify(client: ProviderClient, credentials: Credentials): Promise<ConnectionSettings>
  readonly retry: RetryPolicy
  /**
   * The time zone at whose midnight the provider's daily quota resets, from the connection's settings
   * (HubSpot: the account's time zone). Used to tell a caller when to retry a spent daily quota.
   */
  readonly dailyQuotaTimeZone?: (settings: ConnectionSettings) => string | undefined
  /**
   * How the answer to a spent daily quota names the quota and, when no `dailyQuotaTimeZone` is known, when it
   * resets, in the provider's terms (Pipedrive: the company's token budget, reset at midnight in a server
   * time zone it does not name). Absent: "<name>'s daily API limit for this account", resetting at midnight
   * in the account's time zone.
   */
  readonly dailyQuotaWords?: { readonly quota: string; readonly resets: string }
  /**
   * A response header in which the provider states what went wrong, read before the body (BambooHR answers
   * errors with an empty body and `X-BambooHR-Error-Message`). Absent: the message comes from the body.
   */
  readonly errorMessageHeader?: string
  /**
   * Provider parameters Unigate sets itself on every call of the integration (paging, the method called), each with what to use instead. A
   * `raw` parameter of one of these names is a 400 naming it, before any provider call: it would either
   * replace Unigate's own (a page read again and again without end) or be replaced by it (dropped unsaid).
   */
  readonly rawOwned?: Readonly<Record<string, string>>
  /**
   * The field the provider reads a query parameter name as, where it reads several names as one (Google:
   * `page_token` and `pageToken`, google/field-names.ts). A raw parameter read as a name of `rawOwned` (the
   * integration's or the object's) is refused like that name. Absent: each name is its own.
   */
  readonly rawParamField?: (name: string) => string
  readonly objects: Readonly<Record<string, ObjectHandlers>>
  /** Provider endpoints outside the unified model, offered as tools by the tool server (optional). */
  readonly externalTools?: readonly ExternalTool[]
}

export function defineIntegration(definition: IntegrationDefinition): IntegrationDefinition {
  return definition
}

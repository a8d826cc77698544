import { nestedTooDeep } from '../engine/result-json.js'
import { ApiError, ProviderError } from '../errors.js'
import {
  type OutboundAddress,
  type OutboundCall,
  type OutboundMethod,
  outboundTarget,
  type ProviderTransport,
  type SlotWait,
} from '../outbound/index.js'
import { providerWaitMs, retryDelayMs } from './retry.js'
import { withoutTrailingSlashes } from './trailing-slashes.js'
import type { RetryPolicy } from './types.js'
import { holdsDistinctKeys, holdsValues } from './value-count.js'

export interface ProviderRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path relative to the base address, or an absolute URL on the same origin (a provider's `next` link). */
  readonly path: string
  readonly query?: Readonly<Record<string, string | number | undefined>>
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** Reads and idempotent writes may be retried on the policy's statuses. */
  readonly idempotent?: boolean
  /** Use another base address (a provider's separate ingestion host). */
  readonly baseUrl?: string
  /**
   * false sends the request without the connection's credentials: for endpoints that authenticate
   * otherwise (a key in the body or query), so the credentials never reach another host. Default true.
   */
  readonly authenticate?: boolean
  /** Told each attempt's status once its headers are in, before its body is read (OutboundCall.onAnswer). */
  readonly onAnswer?: (status: number) => void
  /** A further slot each attempt takes after its connection's and workspace's (OutboundCall.admit). */
  readonly admit?: OutboundCall['admit']
  /**
   * A wait each attempt makes before it asks for any slot, for a provider's per-second limit (HubSpot's
   * searches): it resolves to the function told that the attempt's answer is in, or that it failed. Every
   * attempt is paced, retries too; waiting here holds none of the connection's slots.
   */
  readonly pace?: () => Promise<() => void>
}

export interface ProviderResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: unknown
}

/**
 * Auth headers that can change while the client lives (an OAuth access token that expires): asked for
 * on every request, and told when the provider refused them so they can be renewed once.
 */
export interface AuthHeaderSource {
  headers(): Promise<Readonly<Record<string, string>>>
  /** The provider answered 401 to `used`; true when renewed headers are worth one more try. */
  rejected(used: Readonly<Record<string, string>>): Promise<boolean>
  /**
   * true: `rejected` is also told of a 401 on a call that is relayed rather than retried (passthrough), so
   * that the next call carries renewed headers. Only for a source whose renewal is cheap and changes nothing
   * stored (a client credentials token dropped from memory): a passthrough path is the caller's, and its
   * 401 may be that endpoint's own rather than the credentials', so such a renewal may come on every call.
   */
  readonly renewsAfterRelayedRefusal?: boolean
}

export interface ProviderClientOptions {
  readonly baseUrl: string
  readonly authHeaders: Readonly<Record<string, string>>
  /** When set, replaces authHeaders. */
  readonly auth?: AuthHeaderSource
  readonly retry: RetryPolicy
  /** The header holding the provider's error message, read before the body (IntegrationDefinition). */
  readonly errorMessageHeader?: string
  readonly timeoutMs: number
  readonly maxRetries: number
  /** Longest wait a retry may take; a provider asking for longer gets its 429 passed on. */
  readonly maxRetryWaitMs: number
  /** The guarded, bounded way out (src/outbound), shared by every connection of the process. */
  readonly transport: ProviderTransport
  /** The connection this client serves: its calls share that connection's concurrency slots. */
  readonly limitKey?: string
  /**
   * The connection's workspace: its calls share the workspace's slots (UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY),
   * and while memory is short, the workspaces that read the most lately wait first.
   */
  readonly workspaceKey?: string
  /**
   * A 2xx answer that is not a JSON object or array is refused (502). For verification, where every
   * provider answers JSON: an address answering a web page or `null` is not the provider (and must not
   * verify, nor read differently from a refusal on the key page).
   */
  readonly jsonAnswersOnly?: boolean
  /**
   * The connection's secret values (keys, tokens, client secrets, the auth header values they make): cut out
   * of every provider message passed on (redactSecrets). Some providers quote the credential they refuse.
   */
  readonly secrets?: readonly string[]
}

/** Shorter values are not looked for: they would cut ordinary words out of a message. */
const MIN_SECRET_LENGTH = 8

/**
 * `text` with every occurrence of a secret (and of each one's part after an auth scheme, `Bearer <token>`)
 * replaced by `[redacted]`, as it is and as it was encoded in a URL or a form body (a token endpoint may
 * echo the form it was sent). A provider's message is passed on in the answer, the API-call log and tool
 * results, and some providers quote what they refused (Amplitude's HTTP V2: `Invalid API key: <the key>`).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret) continue
    for (const bare of new Set([secret, secret.replace(/^[A-Za-z][\w-]*\s+/, '')])) {
      const forms = [bare, encodeURIComponent(bare), new URLSearchParams({ s: bare }).toString().slice(2)]
      for (const part of new Set(forms))
        if (part.length >= MIN_SECRET_LENGTH && out.includes(part)) out = out.split(part).join('[redacted]')
    }
  }
  return out
}

/**
 * The most provider calls one unified operation makes (retries included). Every walk a connector makes has a
 * bound of its own (page-bound.ts, MAX_CURSOR_WALK); this is the bound behind them all, for a loop that
 * trusts a provider to end and one that answers forever: the connection's `api_url` is its own to choose.
 * The heaviest real operations stay far below it (an Amplitude export read day by day over a year: a few
 * hundred calls).
 */
export const MAX_PROVIDER_CALLS_PER_OPERATION = 2_000

/**
 * The most answer bytes one unified operation reads from its provider, in answers of at most the body cap
 * each (UNIGATE_PROVIDER_MAX_BODY_BYTES): this many times that cap (512 MiB by default). Page bounds count
 * pages and calls; this bounds what a request can read, and so hold, however large each page is (a provider
 * answering pages far larger than asked). Most operations read a few megabytes; the heaviest real ones, a
 * Gusto user's payslips across years of payrolls of hundreds of employees (every payroll's detail is read
 * whole), read over 100 MB, and Matomo walks with a sparse filter read the listing again as they go.
 */
export const OPERATION_BODY_CAPS = 16

/** What one operation may still ask of its provider: calls, answer bytes, and until when. */
export interface OperationLimits {
  readonly calls: number
  readonly bytes: number
  /**
   * The time (epoch ms) from which no further call is made, and the setting that chose it, for the 504
   * (UNIGATE_OPERATION_DEADLINE_MS for a request; a webhook check's own deadline for its reads).
   */
  readonly until?: { readonly at: number; readonly setting: string; readonly ms: number }
}

/**
 * The calls, answer bytes and time left to one operation; spent by every attempt of the client it was given
 * to. The time bounds what the others cannot: every call may take up to UNIGATE_PROVIDER_ANSWER_DEADLINE_MS
 * and a walk up to 2,000 of them, so an address answering slowly, page after page, held a request (or a
 * webhook check, and with it one of the job slots every workspace shares) for days.
 */
class OperationBudget {
  private callsLeft: number
  private bytesLeft: number
  /** A call waiting for its connection's or workspace's slot waits no longer than the operation may last. */
  readonly slotWait: SlotWait | undefined

  constructor(readonly limits: OperationLimits) {
    this.callsLeft = limits.calls
    this.bytesLeft = limits.bytes
    const { until } = limits
    this.slotWait = until && { until: until.at, expired: () => this.deadlinePassed(until) }
  }

  private deadlinePassed(until: NonNullable<OperationLimits['until']>): ApiError {
    return new ApiError(
      504,
      `this request has been reading from the provider for ${Math.round(until.ms / 1000)} s, the most Unigate ` +
        `allows one (${until.setting}); nothing more was asked`,
    )
  }

  call(): void {
    const { until } = this.limits
    if (until !== undefined && Date.now() >= until.at) throw this.deadlinePassed(until)
    if (this.callsLeft-- <= 0) {
      throw new ApiError(
        502,
        `the provider was called ${this.limits.calls} times for this one request, the most Unigate makes for ` +
          'one; it kept answering more to read',
      )
    }
  }

  answered(bytes: number): void {
    this.bytesLeft -= bytes
    if (this.bytesLeft < 0) {
      throw new ApiError(
        502,
        `the provider answered more than ${this.limits.bytes} bytes for this one request, the most Unigate ` +
          `reads for one (${OPERATION_BODY_CAPS} times UNIGATE_PROVIDER_MAX_BODY_BYTES)`,
      )
    }
  }
}

export class ProviderClient {
  /** Whose calls these are, as the transport counts them (OutboundCall.limitKey and workspaceKey). */
  readonly owner: Pick<OutboundCall, 'limitKey' | 'workspaceKey'>

  constructor(
    readonly options: ProviderClientOptions,
    private readonly budget?: OperationBudget,
  ) {
    this.owner = {
      ...(options.limitKey !== undefined ? { limitKey: options.limitKey } : {}),
      ...(options.workspaceKey !== undefined ? { workspaceKey: options.workspaceKey } : {}),
    }
  }

  /**
   * This client for one operation: the same connection and options, with at most `limits` of provider calls
   * and answer bytes (by default MAX_PROVIDER_CALLS_PER_OPERATION, and OPERATION_BODY_CAPS answers of the
   * transport's body cap), making no call past UNIGATE_OPERATION_DEADLINE_MS from now or `limits.until`.
   */
  forOperation(limits: Partial<OperationLimits> = {}): ProviderClient {
    const { maxBodyBytes, operationDeadlineMs } = this.options.transport.settings
    const own = {
      at: Date.now() + operationDeadlineMs,
      setting: 'UNIGATE_OPERATION_DEADLINE_MS',
      ms: operationDeadlineMs,
    }
    return new ProviderClient(
      this.options,
      new OperationBudget({
        calls: limits.calls ?? MAX_PROVIDER_CALLS_PER_OPERATION,
        bytes: limits.bytes ?? OPERATION_BODY_CAPS * maxBodyBytes,
        // The earlier of the request's own deadline and the one the caller gives (a webhook check's).
        until: limits.until && limits.until.at < own.at ? limits.until : own,
      }),
    )
  }

  /** How long a call of this operation may wait for a provider slot (OutboundCall.wait). */
  get slotWait(): SlotWait | undefined {
    return this.budget?.slotWait
  }

  /** Counts one provider call against the operation's budget (a 502 past it); for calls made beside `send`. */
  countCall(): void {
    this.budget?.call()
  }

  /** Counts an answer's bytes against the operation's budget (a 502 past it); for calls made beside `send`. */
  countAnswer(bytes: number): void {
    this.budget?.answered(bytes)
  }

  get baseUrl(): string {
    return this.options.baseUrl
  }

  /**
   * The address of a request: `path` under `base`, or `path` itself when it is an absolute link a provider
   * gave (a `next` page), which must be on `base`'s origin. A link elsewhere is refused with a 502 before
   * anything is sent, wherever it came from (an answer, or a cursor remembered for an hour while the
   * connection moved to another address): the connection's credentials go to its own address only.
   * A relative path with a `.` or `..` segment is refused with a 400 (see DOT_SEGMENT): connectors build such
   * paths from the caller's values. A provider's link is not one: linkFrom makes it absolute first, resolving
   * its dot segments as any URL's are.
   */
  urlFor(path: string, base = this.options.baseUrl, query?: ProviderRequest['query']): URL {
    if (ABSOLUTE.test(path)) return withQuery(onOriginOf(base, path), query)
    // As the URL parser reads it: a backslash is a slash, and tabs and newlines are dropped.
    const dot = DOT_SEGMENT.exec(
      (path.split(/[?#]/, 1)[0] ?? '').replace(/[\t\n\r]/g, '').replace(/\\/g, '/'),
    )
    if (dot) throw new PathSegmentRefused(dot[2] ?? '.')
    const url = withQuery(new URL(joinPath(base, path)), query)
    if (url.href.length > MAX_PROVIDER_URL_LENGTH) throw new ProviderAddressTooLong(url.href.length)
    return url
  }

  /**
   * A link the provider gave in its answer to `request` (a `Link: rel="next"` target), as the absolute address
   * to send as a later request's `path`: resolved once, against the address `request` was sent to (RFC 8288
   * section 3.2: a relative reference is resolved as RFC 3986 section 5 says, dot segments included, as the
   * URL parser resolves them in an absolute link), then held to urlFor's rule for a provider's link: on the
   * origin of `request`'s base address, else a 502. What is checked here is then exactly what is sent.
   */
  linkFrom(request: ProviderRequest, link: string): string {
    let resolved: string
    try {
      resolved = new URL(link, this.urlFor(request.path, request.baseUrl, request.query)).href
    } catch (err) {
      if (err instanceof ApiError) throw err
      throw new ApiError(502, 'the provider linked a page at an address that is not a URL; not followed')
    }
    return this.urlFor(resolved, request.baseUrl).href
  }

  /**
   * The address urlFor gives, split into the origin and path undici's dispatcher takes, as undici's top-level
   * `request(url, …)` splits it (makeDispatcher): the transport then calls the guarded agent's own request,
   * without that wrapper's second parse and options spread. A URL that is not http(s) stays a URL so that
   * undici refuses it as it always did.
   */
  targetFor(path: string, base = this.options.baseUrl, query?: ProviderRequest['query']): OutboundAddress {
    const url = this.urlFor(path, base, query)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return url
    return outboundTarget(url)
  }

  /** Sends a request; answers the parsed body of a 2xx, throws ProviderError otherwise. */
  async json<T = unknown>(req: ProviderRequest): Promise<T> {
    const res = await this.send(req)
    return res.body as T
  }

  /** The headers that authenticate a request right now (passthrough adds them to what it forwards). */
  async currentAuthHeaders(): Promise<Readonly<Record<string, string>>> {
    return this.options.auth ? this.options.auth.headers() : this.options.authHeaders
  }

  /**
   * The provider answered 401 to `used` on a call relayed rather than retried (passthrough): the auth source
   * is told (`rejected`) when it renews after such answers (AuthHeaderSource.renewsAfterRelayedRefusal), so
   * the next call carries new headers. Undefined when nothing was told.
   */
  relayedRefusal(used: Readonly<Record<string, string>>): Promise<boolean> | undefined {
    const auth = this.options.auth
    return auth?.renewsAfterRelayedRefusal === true ? auth.rejected(used) : undefined
  }

  async send(req: ProviderRequest): Promise<ProviderResponse> {
    const method = req.method ?? 'GET'
    const idempotent = req.idempotent ?? (method === 'GET' || method === 'PUT' || method === 'DELETE')
    const url = this.targetFor(req.path, req.baseUrl, req.query)
    const authenticate = req.authenticate !== false
    let auth = authenticate ? await this.currentAuthHeaders() : {}
    const headers: Record<string, string> = { accept: 'application/json', ...auth, ...req.headers }
    let payload: string | undefined
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body)
      headers['content-type'] ??= 'application/json'
    }
    let renewed = false
    for (let attempt = 0; ; attempt++) {
      const paced = req.pace ? await req.pace() : undefined
      let res: ProviderResponse
      try {
        res = await this.once(method, url, headers, payload, req)
      } finally {
        paced?.()
      }
      if (res.status >= 200 && res.status < 300) {
        if (this.options.jsonAnswersOnly && (res.body === null || typeof res.body !== 'object'))
          throw new ProviderError(502, 'the answer was not the JSON the provider answers')
        return res
      }
      // One retry with renewed credentials; safe for any method, as a 401 means nothing was done.
      if (
        res.status === 401 &&
        authenticate &&
        this.options.auth &&
        !renewed &&
        (await this.options.auth.rejected(auth))
      ) {
        renewed = true
        auth = await this.options.auth.headers()
        Object.assign(headers, auth, req.headers)
        attempt--
        continue
      }
      if (this.options.retry.dailyQuotaSpent?.(res.status, res.body, res.headers, req.path)) {
        throw this.refusalOf(res, auth, undefined, true)
      }
      const wait = retryDelayMs(this.options.retry, res.status, res.headers, attempt)
      if (
        idempotent &&
        wait !== undefined &&
        attempt < this.options.maxRetries &&
        wait <= this.options.maxRetryWaitMs
      ) {
        await new Promise((r) => setTimeout(r, wait))
        continue
      }
      const waitMs = providerWaitMs(this.options.retry, res.headers)
      const retryAfterSeconds = waitMs === undefined ? undefined : retryAfterOf(waitMs)
      throw this.refusalOf(res, auth, retryAfterSeconds, false)
    }
  }

  /**
   * The error for a refusal, in the provider's own words: its error header when it names one, else the
   * body's message field, else the body itself (marked so: `messageIsBody`); without the connection's
   * secrets, nor the auth headers this request sent (a token renewed since the client was made).
   */
  private refusalOf(
    res: ProviderResponse,
    sent: Readonly<Record<string, string>>,
    retryAfterSeconds: number | undefined,
    dailyQuotaSpent: boolean,
  ): ProviderError {
    const name = this.options.errorMessageHeader?.toLowerCase()
    const raw = name ? res.headers[name] : undefined
    const header = Array.isArray(raw) ? raw[0] : raw
    const more = Object.values(sent)
    const room = this.messageRoom(more)
    const stated = header?.trim() ? header.trim().slice(0, room) : statedMessageOf(res.body, room)
    const message = this.redact(stated ?? providerMessageOf(res.body, room), more).slice(
      0,
      PROVIDER_MESSAGE_LENGTH,
    )
    return new ProviderError(res.status, message, retryAfterSeconds, dailyQuotaSpent, stated === undefined)
  }

  /** The provider's message in `body` (providerMessageOf), without the connection's secrets. */
  messageOf(body: unknown): string {
    return this.redact(providerMessageOf(body, this.messageRoom())).slice(0, PROVIDER_MESSAGE_LENGTH)
  }

  /**
   * How much of a provider message to take before its secrets are cut out: its length, and room for the
   * longest secret past it in its longest form (URL-encoded, 9 characters a character at most). Cut to its
   * length first, a secret straddling the cut kept its first characters, which no redaction matched.
   */
  private messageRoom(more: readonly string[] = []): number {
    let longest = 0
    for (const secret of [...(this.options.secrets ?? []), ...more])
      longest = Math.max(longest, secret?.length ?? 0)
    return PROVIDER_MESSAGE_LENGTH + 9 * longest
  }

  /** `text` without the connection's secrets (and these values): for any provider message passed on. */
  redact(text: string, more: readonly string[] = []): string {
    return redactSecrets(text, [...(this.options.secrets ?? []), ...more])
  }

  private async once(
    method: string,
    url: OutboundAddress,
    headers: Record<string, string>,
    payload: string | undefined,
    { onAnswer, admit }: Pick<ProviderRequest, 'onAnswer' | 'admit'>,
  ): Promise<ProviderResponse> {
    this.countCall()
    const res = await this.options.transport.fetch(url, {
      method: method as OutboundMethod,
      headers,
      body: payload ?? null,
      timeoutMs: this.options.timeoutMs,
      ...this.owner,
      ...(this.budget?.slotWait ? { wait: this.budget.slotWait } : {}),
      ...(onAnswer !== undefined ? { onAnswer } : {}),
      ...(admit !== undefined ? { admit } : {}),
    })
    this.countAnswer(res.body.length)
    return {
      status: res.status,
      headers: res.headers,
      body: parseBody(res.body, res.headers['content-type']),
    }
  }
}

const ABSOLUTE = /^https?:\/\//

/**
 * The longest provider address Unigate builds from a request's values. Servers read the request line with
 * the headers, within a bound that Node's own server sets at 16 KiB: a 200 KB id went out as the path and
 * came back 431, answered 502 as if the provider had failed (an outside sweep found it). Links a provider
 * gives are its own business and not bounded here.
 */
export const MAX_PROVIDER_URL_LENGTH = 16_384

/** A 400: the caller's values (an id, a filter, `raw`) would make a provider address past MAX_PROVIDER_URL_LENGTH. */
export class ProviderAddressTooLong extends ApiError {
  constructor(length: number) {
    super(
      400,
      `the values given (an id, a filter or raw) would make the provider's address ${length} characters long; ` +
        `Unigate sends at most ${MAX_PROVIDER_URL_LENGTH}`,
    )
  }
}

/**
 * A 400: a `.` or `..` segment (see DOT_SEGMENT) would have gone into a provider path. Its own class so that
 * verification can tell one that came from an earlier answer (an id the provider gave) from a caller's value.
 */
export class PathSegmentRefused extends ApiError {
  constructor(readonly segment: string) {
    super(
      400,
      `'${segment}' is not an id or filter value Unigate sends on: as a segment of the provider's path it would ` +
        'name another address than the object asked for',
    )
    this.name = 'PathSegmentRefused'
  }
}

/**
 * A `.` or `..` path segment, plain or percent-encoded (the URL parser resolves `%2e%2e` as `..` too).
 * Connectors put ids and filter values into provider paths, encoded, but `encodeURIComponent` leaves `..`
 * as it is: an id of `..` would send the connection's credentials to the parent path (and, with a suffix
 * after the id, to a neighbouring endpoint), so such a path is refused here, for every connector at once.
 */
const DOT_SEGMENT = /(^|\/)((?:\.|%2e){1,2})(?=\/|$)/i

function withQuery(url: URL, query: ProviderRequest['query']): URL {
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
  return url
}

/** `link` when it is on `base`'s origin; a 502 naming both origins (never a path or query) otherwise. */
function onOriginOf(base: string, link: string): URL {
  const url = new URL(link)
  const own = new URL(base).origin
  if (url.origin !== own) {
    throw new ApiError(
      502,
      `the provider linked a page on ${url.origin}, not on the connection's address ${own}; not followed`,
    )
  }
  return url
}

export function joinPath(base: string, path: string): string {
  return `${withoutTrailingSlashes(base)}/${path.replace(/^\/+/, '')}`
}

/** An answer longer than this has its values counted before it is parsed (value-count.ts). */
const COUNTED_ANSWER_BYTES = 1024 * 1024

/**
 * The most values (counted as commas, `[` and `{`) an answer over COUNTED_ANSWER_BYTES may hold: at most about 0.7 s of
 * JSON.parse on a slow machine, where the body cap alone allowed 32 MiB of `{},` and 7.5 s. The largest page
 * Unigate asks a provider for is 1,000 records (MAX_LIMIT), a few hundred values each at the most.
 */
export const MAX_VALUES_PER_ANSWER = 1_000_000

/**
 * The most different object keys such an answer may hold (holdsDistinctKeys): 100,000 keys all different parse
 * in about 0.1 to 0.25 s here. A page of records repeats a few hundred names, a Mixpanel series its dates and
 * event names (some thousands), a Matomo breakdown its dozen columns.
 */
export const MAX_DISTINCT_KEYS_PER_ANSWER = 100_000

/** A provider answer as JSON when it is JSON (by type, or by its first character), else as text. */
function parseBody(bytes: Buffer, contentType: string | string[] | undefined): unknown {
  if (bytes.length === 0) return undefined
  if (bytes.length > COUNTED_ANSWER_BYTES && holdsValues(bytes, MAX_VALUES_PER_ANSWER)) {
    throw new ApiError(
      502,
      `the provider answered more than ${MAX_VALUES_PER_ANSWER} values at once, more than Unigate parses of ` +
        'one answer; not read (a smaller limit may help)',
    )
  }
  if (bytes.length > COUNTED_ANSWER_BYTES && holdsDistinctKeys(bytes, MAX_DISTINCT_KEYS_PER_ANSWER)) {
    throw new ApiError(
      502,
      `the provider answered more than ${MAX_DISTINCT_KEYS_PER_ANSWER} different object keys at once, more than ` +
        'Unigate parses of one answer; not read',
    )
  }
  // Buffer#toString rather than a TextDecoder per answer; like TextDecoder, drop a byte-order mark.
  const decoded = bytes.toString('utf8')
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded
  if (text === '') return undefined
  const type = typeof contentType === 'string' ? contentType : String(contentType ?? '')
  if (type.includes('json') || /^\s*[[{"]/.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

/** The most characters of a provider's message passed on. */
export const PROVIDER_MESSAGE_LENGTH = 500

/**
 * The message a provider states in its error body's usual fields (`message`, `error.message`…), if any, of at
 * most `length` characters.
 */
function statedMessageOf(body: unknown, length = PROVIDER_MESSAGE_LENGTH): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const b = body as Record<string, unknown>
  for (const key of ['detail', 'message', 'error_description', 'error', 'msg']) {
    const v = b[key]
    if (typeof v === 'string') {
      const details = itemizedErrorsOf(b.errors, length)
      return (details && !v.includes(details) ? `${v} (${details})` : v).slice(0, length)
    }
    if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') {
      return String((v as { message: string }).message).slice(0, length)
    }
  }
  return undefined
}

/**
 * The items of an `errors` list beside a summary message, each `field: message` where it names its field:
 * Greenhouse answers a 422 as `{message: "Validation error", errors: [{message, field}]}`
 * (grnhse/greenhouse-api-docs, harvest/_introduction.md, Validation), whose summary alone names neither
 * the parameter nor what was wrong with it. Undefined when the list holds no item with a message.
 */
function itemizedErrorsOf(errors: unknown, length: number): string | undefined {
  if (!Array.isArray(errors)) return undefined
  const items: string[] = []
  let chars = 0
  for (const item of errors) {
    // The message is cut to `length` anyway: a list of many items is not walked past it.
    if (chars > length) break
    if (!item || typeof item !== 'object') continue
    const { message, field } = item as { message?: unknown; field?: unknown }
    if (typeof message !== 'string' || message === '') continue
    const text = typeof field === 'string' && field !== '' ? `${field}: ${message}` : message
    items.push(text)
    chars += text.length + 2
  }
  return items.length > 0 ? items.join('; ') : undefined
}

/**
 * Pulls a human-readable message out of the many error body shapes providers use, of at most `length`
 * characters. A message passed on loses the connection's secrets before it is cut (ProviderClient#messageOf).
 */
export function providerMessageOf(body: unknown, length = PROVIDER_MESSAGE_LENGTH): string {
  const stated = statedMessageOf(body, length)
  if (stated !== undefined) return stated
  if (typeof body === 'string') return body.slice(0, length)
  if (body && typeof body === 'object') {
    try {
      return JSON.stringify(body).slice(0, length)
    } catch (err) {
      if (nestedTooDeep(err)) return 'an answer nested too deep to quote'
      throw err
    }
  }
  return 'no response body'
}

/**
 * The longest wait passed on as `retry-after`: a provider's header is its own to write, and `1e308` seconds
 * (Infinity once in milliseconds) or `1e300` had the answer say `retry-after: Infinity` or `1e+300`, which no
 * client reads as the delta-seconds RFC 9110 section 10.2.3 asks for. A longer wait is asked again after a day.
 */
const MAX_RETRY_AFTER_SECONDS = 86_400

/** A provider's wait as the whole seconds of a `retry-after` header: at least 1, at most a day. */
export function retryAfterOf(waitMs: number): number {
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(waitMs / 1000)))
}

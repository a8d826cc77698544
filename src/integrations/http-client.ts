import { ProviderError } from '../errors.js'
import type { OutboundAddress, OutboundMethod, OutboundTarget, ProviderTransport } from '../outbound/index.js'
import { providerWaitMs, retryDelayMs } from './retry.js'
import type { RetryPolicy } from './types.js'

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
}

export class ProviderClient {
  constructor(readonly options: ProviderClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl
  }

  urlFor(path: string, base = this.options.baseUrl, query?: ProviderRequest['query']): URL {
    const url = ABSOLUTE.test(path) ? new URL(path) : new URL(joinPath(base, path))
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    return url
  }

  /**
   * The address urlFor gives, split into undici's origin and path as strings: the base is parsed once,
   * the path and query are joined as text when that text is what the URL parser would keep as it is, and
   * anything else (characters it would encode or drop, dot-segments, a fragment, another origin's link) goes
   * through urlFor. A URL that is not http(s) stays a URL so that undici refuses it as it always did.
   */
  targetFor(path: string, base = this.options.baseUrl, query?: ProviderRequest['query']): OutboundAddress {
    const split = splitBase(base)
    let rest: string | undefined
    if (split) {
      if (!ABSOLUTE.test(path)) rest = split.path + path.replace(LEADING_SLASHES, '/')
      else if (path.startsWith(split.origin) && path.charCodeAt(split.origin.length) === SLASH) {
        rest = path.slice(split.origin.length)
      }
    }
    const target = split && rest !== undefined ? plainTarget(split.origin, rest, query) : undefined
    if (target) return target
    const url = this.urlFor(path, base, query)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return url
    return { origin: url.origin, path: url.pathname + url.search }
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
      const res = await this.once(method, url, headers, payload)
      if (res.status >= 200 && res.status < 300) return res
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
      if (this.options.retry.dailyQuotaSpent?.(res.status, res.body)) {
        throw new ProviderError(res.status, this.errorMessageOf(res), undefined, true)
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
      const retryAfterSeconds = waitMs === undefined ? undefined : Math.max(1, Math.ceil(waitMs / 1000))
      throw new ProviderError(res.status, this.errorMessageOf(res), retryAfterSeconds)
    }
  }

  /** The provider's own words for a failure: its error header when it names one, else the body's message. */
  private errorMessageOf(res: ProviderResponse): string {
    const name = this.options.errorMessageHeader?.toLowerCase()
    const raw = name ? res.headers[name] : undefined
    const header = Array.isArray(raw) ? raw[0] : raw
    return header?.trim() ? header.trim().slice(0, 500) : providerMessageOf(res.body)
  }

  private async once(
    method: string,
    url: OutboundAddress,
    headers: Record<string, string>,
    payload: string | undefined,
  ): Promise<ProviderResponse> {
    const res = await this.options.transport.fetch(url, {
      method: method as OutboundMethod,
      headers,
      body: payload ?? null,
      timeoutMs: this.options.timeoutMs,
      ...(this.options.limitKey !== undefined ? { limitKey: this.options.limitKey } : {}),
    })
    return {
      status: res.status,
      headers: res.headers,
      body: parseBody(res.body, res.headers['content-type']),
    }
  }
}

const ABSOLUTE = /^https?:\/\//
const LEADING_SLASHES = /^\/*/
const SLASH = 0x2f
/** Path text the URL parser keeps as it is (no character it percent-encodes, drops or reads as `/`). */
const PLAIN_PATH = /^\/[\w\-.~!$&'()*+,;=:@/%]*$/
/** A `.` or `..` segment, literal or percent-encoded, which the parser would resolve. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i
/** Query text the parser keeps as it is (for http(s) it encodes `'` as well as spaces, quotes, `<`, `>`). */
const PLAIN_QUERY = /^[\w\-.~!$&()*+,;=:@/?%[\]{}|^`\\]*$/

/** A base address split once: its origin, and its path without trailing slashes (which joinPath drops). */
const splitBases = new Map<string, { origin: string; path: string } | null>()
function splitBase(base: string): { origin: string; path: string } | undefined {
  let split = splitBases.get(base)
  if (split === undefined) {
    split = null
    try {
      const url = new URL(base)
      const path = base.slice(url.origin.length).replace(/\/+$/, '')
      if (
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        base.startsWith(url.origin) &&
        (path === '' || (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)))
      ) {
        split = { origin: url.origin, path }
      }
    } catch {
      // Not a URL: urlFor throws for it as it did.
    }
    // A process talks to a bounded set of bases; the cap only guards against an unexpected stream of them.
    if (splitBases.size >= 1000) splitBases.clear()
    splitBases.set(base, split)
  }
  return split ?? undefined
}

/**
 * `rest` (the path after the origin, with any query) as the URL object would have it after
 * `searchParams.set` of each defined query value; undefined when the text is not plain enough to tell.
 */
function plainTarget(
  origin: string,
  rest: string,
  query: ProviderRequest['query'],
): OutboundTarget | undefined {
  const q = rest.indexOf('?')
  const pathname = q === -1 ? rest : rest.slice(0, q)
  if (!PLAIN_PATH.test(pathname) || DOT_SEGMENT.test(pathname)) return undefined
  let search = q === -1 ? '' : rest.slice(q + 1)
  if (search !== '' && !PLAIN_QUERY.test(search)) return undefined
  if (query) {
    let added = ''
    for (const key in query) {
      const value = query[key]
      if (value === undefined) continue
      const pair = formPair(key, String(value))
      // A lone surrogate, which URLSearchParams writes as U+FFFD: urlFor answers for it.
      if (pair === undefined) return undefined
      added = added === '' ? pair : `${added}&${pair}`
    }
    if (added !== '') {
      if (search === '') search = added
      else {
        // Setting a parameter re-serialises the whole query in the form encoding, replacing a same-named one.
        // The constructor drops one leading `?` of its text, which the URL's own query keeps: give it one.
        const params = new URLSearchParams(`?${search}`)
        for (const key in query) {
          const value = query[key]
          if (value !== undefined) params.set(key, String(value))
        }
        search = params.toString()
      }
    }
  }
  return { origin, path: search === '' ? pathname : `${pathname}?${search}` }
}

function formPair(key: string, value: string): string | undefined {
  try {
    return `${formEncoded(key)}=${formEncoded(value)}`
  } catch {
    return undefined
  }
}

const FORM_DIFFERENCES = /%20|[!'()~]/g
const FORM_DIFFERS = /%20|[!'()~]/
/** application/x-www-form-urlencoded as URLSearchParams writes it: encodeURIComponent less `!'()~`, `+` for a space. */
function formEncoded(text: string): string {
  const encoded = encodeURIComponent(text)
  // Most keys and values have none of these: a test is cheaper than a replace that finds nothing.
  if (!FORM_DIFFERS.test(encoded)) return encoded
  return encoded.replace(FORM_DIFFERENCES, (c) =>
    c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

export function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/** A provider answer as JSON when it is JSON (by type, or by its first character), else as text. */
function parseBody(bytes: Buffer, contentType: string | string[] | undefined): unknown {
  if (bytes.length === 0) return undefined
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

/** Pulls a human-readable message out of the many error body shapes providers use. */
export function providerMessageOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 500)
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>
    for (const key of ['detail', 'message', 'error_description', 'error', 'msg']) {
      const v = b[key]
      if (typeof v === 'string') return v.slice(0, 500)
      if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') {
        return String((v as { message: string }).message).slice(0, 500)
      }
    }
    return JSON.stringify(body).slice(0, 500)
  }
  return 'no response body'
}

import type { Readable, Writable } from 'node:stream'
import type { Dispatcher } from 'undici'
import {
  ApiError,
  ConnectionBusyError,
  ProviderAnswerTooLargeError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnreachableError,
} from '../errors.js'
import { type AllowedAddress, POLICY_REFUSAL_CODE } from './address-policy.js'
import { GuardedAgentOnFirstUse } from './agent-on-first-use.js'
import { ConnectionLimiter, type SlotWait } from './connection-limiter.js'
import { HeapGuard, type HeapUse } from './heap-guard.js'
import { InterimAnswerBound } from './interim-answers.js'

export interface ProviderTransportSettings {
  readonly allowAddresses: readonly AllowedAddress[]
  /** Connect, headers and body (between chunks) timeout, unless a call gives its own. */
  readonly timeoutMs: number
  /** The largest answer `fetch` reads into memory. */
  readonly maxBodyBytes: number
  /**
   * The longest `fetch` waits for a whole answer, from the call's start to the body's last byte, however
   * steadily it trickles (the other timeouts bound each pause only).
   */
  readonly answerDeadlineMs: number
  /** How long one operation may keep calling its provider (the clients' OperationBudget reads it). */
  readonly operationDeadlineMs: number
  readonly connectionConcurrency: number
  readonly connectionQueue: number
  /** Calls one workspace runs at once, over all its connections, and queues beyond that (see `slots`). */
  readonly workspaceConcurrency: number
  readonly workspaceQueue: number
  /** No answer is read into memory while the heap is past this percent of its limit (see HeapGuard). */
  readonly heapShedPercent: number
  /** The heap's use, V8's own unless a test gives another. */
  readonly heapUse?: () => HeapUse
}

/**
 * Sockets per provider origin, shared by every connection and workspace. Far above one connection's
 * concurrency, and above one workspace's by default, so those limits are what bind: a saturated connection
 * or workspace waits on its own lane, never on the pool.
 */
const SOCKETS_PER_ORIGIN = 1024

/**
 * The most of a token endpoint's answer that is read (`smallAnswer`). RFC 6749 section 5.1's answer is a
 * few fields; with an OpenID `id_token` a few kilobytes. Without this bound such an answer was read up to
 * UNIGATE_PROVIDER_MAX_BODY_BYTES past the memory check, and an endpoint answering 32 MiB of `[{},…]`
 * held the event loop for 7 s in JSON.parse on every refresh (a security review, reproduced).
 */
export const SMALL_ANSWER_BYTES = 64 * 1024

export type OutboundMethod = Dispatcher.HttpMethod

/** Frees what a call holds (its connection's and workspace's slots); calling it again is harmless. */
type Release = () => void
/** What `slotsNow` answers when a slot is not free: the call must queue (`slots`). */
const MUST_WAIT = Symbol('must wait')

/** Frees a call's workspace slot and, when it took one, its connection's. */
function bothReleased(workspace: Release, connection: Release | undefined): Release {
  if (connection === undefined) return workspace
  return () => {
    workspace()
    connection()
  }
}

export interface OutboundCall {
  readonly method?: OutboundMethod
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Buffer | Readable | null
  /** The connection the call is made for: it takes one of that connection's slots. */
  readonly limitKey?: string
  /**
   * The workspace the call is made for: it takes one of that workspace's slots too, and while memory is
   * short, the workspaces that read the most lately wait first.
   */
  readonly workspaceKey?: string
  /** Headers and body timeout for this call (default: the transport's). */
  readonly timeoutMs?: number
  /**
   * A token endpoint's answer (a few hundred bytes): read even while memory is short, since refusing it
   * would put the connection's token refresh into backoff for longer than the shortage lasts, and so read
   * only up to SMALL_ANSWER_BYTES.
   */
  readonly smallAnswer?: boolean
  /**
   * Told the status once the answer's status and headers are in, before its body is read: a caller whose
   * provider counts a call only until it starts answering (PostHog's query slots) frees its own count here.
   * Buffered exchanges only (`fetch`); `pipe` hands the status to its writable instead.
   */
  readonly onAnswer?: (status: number) => void
  /** How long the call may wait for its connection's and workspace's slots: until its caller leaves, its deadline. */
  readonly wait?: SlotWait
  /**
   * A further slot the call takes once it holds its connection's and workspace's, before it is sent: the
   * function that frees it (freed when the exchange ends, if the caller has not freed it before; calling it
   * again must be harmless). For a provider's own limit that connections of several workspaces share
   * (PostHog's 3 queries per project): taken last, so that a call waiting for its own workspace's slot
   * does not hold one of those meanwhile. Its wait has bounds of its own. Buffered exchanges only (`fetch`).
   */
  readonly admit?: () => Promise<() => void>
}

/**
 * A provider address split the way undici's dispatcher takes it: `origin` as `https://host[:port]`, `path`
 * from its `/` with the query. Callers that know both as strings (ProviderClient, passthrough, webhooks)
 * spare undici's top-level `request(url, …)` its URL parse and options spread on every call.
 */
export interface OutboundTarget {
  readonly origin: string
  readonly path: string
}

/** A parsed http(s) URL as undici's top-level `request(url, …)` splits it for its dispatcher (makeDispatcher). */
export function outboundTarget(url: URL): OutboundTarget {
  return { origin: url.origin, path: url.pathname + url.search }
}

/** A pre-split target, or a URL (or its text) that undici's top-level API parses and checks as it always did. */
export type OutboundAddress = OutboundTarget | URL | string

type AnswerHeaders = Record<string, string | string[] | undefined>

export interface BufferedAnswer {
  readonly status: number
  readonly headers: AnswerHeaders
  readonly body: Buffer
}

/**
 * The one way the server talks to providers and OAuth token endpoints on a caller's behalf: every socket
 * checked by the address policy (after DNS, on connect), every call bounded in time, buffered answers
 * bounded in size, each connection bounded in concurrent calls. Redirects are never followed (neither
 * undici's `request`/`stream` nor the agent's own methods do: no redirect interceptor is composed), so a
 * provider's 3xx is its answer and cannot bounce a call into the internal network.
 */
export class ProviderTransport {
  private readonly agent: GuardedAgentOnFirstUse
  private readonly heap: HeapGuard
  readonly limiter: ConnectionLimiter
  readonly workspaceLimiter: ConnectionLimiter

  constructor(readonly settings: ProviderTransportSettings) {
    this.agent = new GuardedAgentOnFirstUse({
      allowAddresses: settings.allowAddresses,
      connectTimeoutMs: settings.timeoutMs,
      connections: SOCKETS_PER_ORIGIN,
    })
    this.limiter = new ConnectionLimiter({
      concurrency: settings.connectionConcurrency,
      queue: settings.connectionQueue,
    })
    this.workspaceLimiter = new ConnectionLimiter(
      { concurrency: settings.workspaceConcurrency, queue: settings.workspaceQueue },
      'workspace',
    )
    this.heap = new HeapGuard(settings.heapShedPercent, settings.heapUse)
  }

  /**
   * One exchange with the answer read into memory, up to the cap; refused (503, nothing sent) while the
   * process is short of memory.
   */
  async fetch(url: OutboundAddress, call: OutboundCall = {}): Promise<BufferedAnswer> {
    const now = this.slotsNow(call)
    const release = now === MUST_WAIT ? await this.slots(call) : now
    const timeoutMs = call.timeoutMs ?? this.settings.timeoutMs
    let admitted: Release | undefined
    try {
      if (call.admit) admitted = await call.admit()
      // After the connection's queue: a call that waited there while memory ran short is refused too.
      if (!call.smallAnswer) this.heap.check(call.workspaceKey)
      const started = Date.now()
      // A token endpoint's few hundred bytes come within the call's timeout, headers and body together, so
      // that a token request ends within its longest (TokenClient.longestMs) and a refresh within its lease.
      const deadlineMs = call.smallAnswer
        ? Math.min(timeoutMs, this.settings.answerDeadlineMs)
        : this.settings.answerDeadlineMs
      // Only a token request's headers are bounded from its start whatever comes (sendWithin): a signal on
      // every call cost the unified list about a tenth of its CPU per request (bench/ab.ts, 1.05-1.15).
      // Other calls' headers are bounded once an interim answer comes (InterimAnswerBound).
      const res = call.smallAnswer
        ? await this.sendWithin(url, call, timeoutMs, deadlineMs)
        : await this.send(url, call, timeoutMs)
      if (call.onAnswer) {
        try {
          call.onAnswer(res.statusCode)
        } catch (err) {
          // The body is never read then: let the socket go.
          res.body.destroy()
          throw err
        }
      }
      const body = await readCapped(res.body, res.headers, {
        cap: call.smallAnswer
          ? Math.min(SMALL_ANSWER_BYTES, this.settings.maxBodyBytes)
          : this.settings.maxBodyBytes,
        ...(call.smallAnswer ? { what: 'a token endpoint answer' } : {}),
        deadlineMs,
        leftMs: deadlineMs - (Date.now() - started),
      })
      this.heap.answered(call.workspaceKey, body.length)
      return { status: res.statusCode, headers: res.headers, body }
    } catch (err) {
      throw outboundFailure(err, timeoutMs)
    } finally {
      admitted?.()
      release?.()
    }
  }

  /**
   * One exchange whose answer body is written straight into the writable `into` gives once the status and
   * headers are in (undici's stream API: no Readable in between, the cheapest way to relay an answer).
   * Settles when the body has been written, or with the failure; the connection's slot is held until then.
   */
  async pipe(
    url: OutboundAddress,
    call: OutboundCall,
    into: (answer: { status: number; headers: AnswerHeaders }) => Writable,
  ): Promise<void> {
    const now = this.slotsNow(call)
    const release = now === MUST_WAIT ? await this.slots(call) : now
    const timeoutMs = call.timeoutMs ?? this.settings.timeoutMs
    const interim = new InterimAnswerBound(timeoutMs, call.body)
    try {
      const { stream, agent } = await this.agent.kit()
      const factory: Dispatcher.StreamFactory = ({ statusCode, headers }) => {
        interim.answered()
        return into({ status: statusCode, headers })
      }
      const options = exchangeOptions(call, timeoutMs, interim)
      if (isPreSplit(url)) await agent.stream({ origin: url.origin, path: url.path, ...options }, factory)
      else await stream(url, { ...options, dispatcher: agent }, factory)
    } catch (err) {
      throw outboundFailure(err, timeoutMs)
    } finally {
      interim.answered()
      release?.()
    }
  }

  /**
   * The call's slot on its connection's lane, then on its workspace's; answers the function that frees both.
   * Without the workspace's lane, a key holder's many connections (one may be created from any credentials)
   * could each hold their share of slow calls, a relay to a caller reading a byte now and then, until they
   * held every socket of a provider origin that other workspaces share. The connection's slot is taken first:
   * a call waiting for its workspace then holds up only its own connection, where the other order had one
   * busy connection's queue fill the workspace's slots.
   */
  private async slots(call: OutboundCall): Promise<Release | undefined> {
    let connection: Release | undefined
    try {
      connection =
        call.limitKey === undefined ? undefined : await this.limiter.acquire(call.limitKey, call.wait)
    } catch (err) {
      throw this.boundHit(err, call.workspaceKey)
    }
    if (call.workspaceKey === undefined) return connection
    let workspace: () => void
    try {
      workspace = await this.workspaceLimiter.acquire(call.workspaceKey, call.wait)
    } catch (err) {
      connection?.()
      throw err
    }
    return bothReleased(workspace, connection)
  }

  /**
   * The refusal a caller is answered when its connection's lane refused the call (`err`): the workspace's when
   * the workspace is at its bound too. The connection's slots are then held by calls waiting for the
   * workspace's (or would be refused by it), so the workspace is the bound to wait out and its settings the
   * ones to raise; naming the connection's sent the operator to a setting that changes nothing.
   */
  private boundHit(err: unknown, workspaceKey: string | undefined): unknown {
    if (!(err instanceof ConnectionBusyError) || workspaceKey === undefined) return err
    return this.workspaceLimiter.full(workspaceKey) ? this.workspaceLimiter.busy() : err
  }

  /**
   * Both slots at once when both are free (nearly every call), with no promise and no turn of the event
   * loop: the function that frees them, undefined for a call that counts against neither, or MUST_WAIT with
   * nothing held, for `slots` to queue the call.
   */
  private slotsNow(call: OutboundCall): Release | undefined | typeof MUST_WAIT {
    const { limitKey, workspaceKey } = call
    const connection = limitKey === undefined ? undefined : this.limiter.tryAcquire(limitKey)
    if (limitKey !== undefined && connection === undefined) return MUST_WAIT
    if (workspaceKey === undefined) return connection
    const workspace = this.workspaceLimiter.tryAcquire(workspaceKey)
    if (workspace === undefined) {
      connection?.()
      return MUST_WAIT
    }
    return bothReleased(workspace, connection)
  }

  /**
   * `send`, its status and headers in within `deadlineMs` of now, or a timeout: undici's headers timeout
   * starts again at every interim (1xx) answer, so an address answering `103 Early Hints` every few hundred
   * milliseconds held a call, and its connection's and workspace's slots, for as long as it liked (a review
   * reproduced it). The answer's body is bounded from the same start by readCapped. Used for token requests,
   * whose refresh lease counts on it; other calls are still open to it (see README, Timeouts).
   */
  private async sendWithin(url: OutboundAddress, call: OutboundCall, timeoutMs: number, deadlineMs: number) {
    const abort = new AbortController()
    const due = setTimeout(() => abort.abort(new ProviderTimeoutError(deadlineMs)), deadlineMs)
    try {
      return await this.send(url, call, timeoutMs, abort.signal)
    } finally {
      clearTimeout(due)
    }
  }

  /** The exchange's status and headers, its body still to read. */
  private async send(url: OutboundAddress, call: OutboundCall, timeoutMs: number, signal?: AbortSignal) {
    const { request, agent } = await this.agent.kit()
    const interim = new InterimAnswerBound(timeoutMs, call.body)
    const options = { ...exchangeOptions(call, timeoutMs, interim), ...(signal ? { signal } : {}) }
    try {
      // The agent's own request is what undici's top-level one ends in (index.js makeDispatcher), less the parse.
      if (isPreSplit(url)) return await agent.request({ origin: url.origin, path: url.path, ...options })
      return await request(url, { ...options, dispatcher: agent })
    } finally {
      interim.answered()
    }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}

/**
 * What an exchange gives undici besides its address: the call's method, headers and body, and the timeouts
 * (undici's, and the bound on interim answers that undici's headers timeout misses).
 */
function exchangeOptions(call: OutboundCall, timeoutMs: number, interim: InterimAnswerBound) {
  return {
    method: call.method ?? 'GET',
    headers: call.headers ?? {},
    body: call.body ?? null,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    onInfo: interim.onInfo,
  }
}

function isPreSplit(url: OutboundAddress): url is OutboundTarget {
  return typeof url !== 'string' && !(url instanceof URL)
}

/**
 * Reads a body with a running count, abandoning it (and its socket) as soon as it passes the cap, or once
 * `leftMs` of the answer's deadline have passed: undici bounds each pause in a body, not the whole, so a
 * provider sending a byte every few seconds held the call, and the connection's slot, for as long as it
 * liked (a webhook poll of such an address held one of the process's job slots with it). Plain 'data'
 * events rather than `for await`: the async iterator cost a promise and a tick per chunk.
 */
function readCapped(
  body: Readable,
  headers: AnswerHeaders,
  limits: { cap: number; deadlineMs: number; leftMs: number; what?: string },
): Promise<Buffer> {
  const tooLarge = () =>
    limits.what === undefined
      ? new ProviderAnswerTooLargeError(limits.cap)
      : new ProviderAnswerTooLargeError(
          limits.cap,
          `${limits.what} is larger than ${limits.cap} bytes, the most Unigate reads of one`,
        )
  const abandon = (why: Error) => {
    // Destroying emits undici's "aborted" error; nobody else listens, so it is expected here.
    body.on('error', () => undefined)
    body.destroy()
    return why
  }
  const { cap } = limits
  const declared = Number(headers['content-length'])
  if (Number.isFinite(declared) && declared > cap) return Promise.reject(abandon(tooLarge()))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const stop = (why: Error) => {
      clearTimeout(deadline)
      body.off('data', onData)
      body.off('end', onEnd)
      reject(abandon(why))
    }
    const deadline = setTimeout(
      () => stop(new ProviderTimeoutError(limits.deadlineMs)),
      Math.max(0, limits.leftMs),
    )
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= cap) {
        chunks.push(chunk)
        return
      }
      stop(tooLarge())
    }
    const onEnd = () => {
      clearTimeout(deadline)
      // An answer that came in one chunk (most do) is that chunk: concat would copy it into a new buffer.
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total))
    }
    body.on('data', onData)
    body.once('end', onEnd)
    body.once('error', (err) => {
      clearTimeout(deadline)
      reject(err)
    })
  })
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/** What a failed exchange means to the API: a timeout, a refusal by the address policy, or unreachable. */
export function outboundFailure(err: unknown, timeoutMs: number): Error {
  if (
    // Already the API's answer (the heap guard's 503).
    err instanceof ApiError ||
    err instanceof ProviderUnreachableError ||
    err instanceof ProviderTimeoutError ||
    err instanceof ProviderError
  )
    return err
  const e = err as { code?: string; message?: string }
  if (e.code && TIMEOUT_CODES.has(e.code)) return new ProviderTimeoutError(timeoutMs)
  if (e.code === POLICY_REFUSAL_CODE) {
    return new ProviderUnreachableError(`refused by the outbound address policy: ${e.message}`)
  }
  return new ProviderUnreachableError(e.code ?? e.message ?? 'connection failed')
}

import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type InboundNote, inboundNoteOf, noteProviderTime, noteRelayedAnswer } from '../../apicalls/index.js'
import { apiErrorFromProvider, markUnhealthyIfRefused } from '../../engine/index.js'
import { ApiError, badRequest, notFound } from '../../errors.js'
import { joinPath, type ProviderClient } from '../../integrations/http-client.js'
import { withoutTrailingSlashes } from '../../integrations/trailing-slashes.js'
import { type OutboundMethod, type OutboundTarget, outboundTarget } from '../../outbound/index.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'
import { releaseUploadDeadline } from '../upload-deadline.js'

/** Headers that describe one hop, not the message (RFC 9110 section 7.6.1), plus ours that must not leak. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
])
// `expect: 100-continue` is answered between the caller and Unigate (Node's server sends the 100); undici
// refuses to send it on (UND_ERR_NOT_SUPPORTED), which made the call a 502 naming the provider unreachable.
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'authorization', 'cookie', 'content-length', 'expect'])

const PREFIX = /^\/passthrough\/([^/?]+)\/?([^?]*)(?:\?(.*))?$/

/**
 * Headers of the provider's answer that are not passed on: they speak for the origin that sends them, and
 * relayed they would speak for Unigate's. A provider must not set cookies on our origin, pin it to HTTPS
 * (`strict-transport-security`), point it at alternative services (`alt-svc`), clear a browser's data for it
 * (`clear-site-data`), or replace the `x-content-type-options: nosniff` every answer of Unigate's carries
 * (app.ts): a provider's own `none` would let a browser read its body as HTML on Unigate's origin.
 */
const NOT_RETURNED = new Set([
  ...HOP_BY_HOP,
  'set-cookie',
  'set-cookie2',
  'strict-transport-security',
  'alt-svc',
  'clear-site-data',
  'x-content-type-options',
])

/**
 * A `www-authenticate` challenge a browser answers with a login prompt (Basic, Digest, NTLM, Negotiate):
 * relayed, the prompt would ask for the provider's password under Unigate's address. Such a header is not
 * passed on; a Bearer challenge (RFC 6750 section 3), which names why a token was refused and prompts for
 * nothing, is. A scheme begins the header or follows a comma; a quoted value that happens to read like one
 * only drops a header that could have been kept.
 */
const PROMPTING_CHALLENGE = /(?:^|,)\s*(?:basic|digest|ntlm|negotiate)(?:\s|,|$)/i

function promptsForLogin(value: string | string[]): boolean {
  return (Array.isArray(value) ? value : [value]).some((v) => PROMPTING_CHALLENGE.test(v))
}

/**
 * The headers an answer's `connection` header names: hop-by-hop by that naming (RFC 9110 section 7.6.1), so
 * not passed on either; undefined when it names none but the usual `keep-alive`/`close`.
 */
function hopNamedBy(connection: string | string[] | undefined): ReadonlySet<string> | undefined {
  // The usual answer's, read once per relayed call: no list to build.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined
  const named = (Array.isArray(connection) ? connection.join(',') : connection)
    .toLowerCase()
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '' && token !== 'keep-alive' && token !== 'close')
  return named.length > 0 ? new Set(named) : undefined
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Headers with which some servers take another method than the request line's (Google's front ends honour
 * X-HTTP-Method-Override; frameworks read the others): the grant is checked by the request's own method, so
 * a read grant must not send a write in disguise. Refused rather than dropped, so a caller learns why.
 */
const METHOD_OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override']

function decodeOrRefuse(text: string, what: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw badRequest(`${what} '${text.slice(0, 200)}' is not validly percent-encoded`)
  }
}

/** A segment decoded until it no longer changes (a few rounds): how a lenient server might end up reading it. */
function fullyDecoded(segment: string): string {
  let text = segment
  for (let round = 0; round < 4; round++) {
    let next: string
    try {
      next = decodeURIComponent(text)
    } catch {
      break
    }
    if (next === text) break
    text = next
  }
  return text
}

const isDotSegment = (s: string) => s === '.' || s === '..'
const UNSAFE_PATH_CHARACTERS = /[.%\\]/
const LEADING_SLASHES = /^\/+/

/**
 * Resolves dot-segments in a provider path, literal or encoded (`..`, `%2e%2e`, `.%2E`, double-encoded),
 * with backslashes read as slashes (URL parsers do, for http). A path that would climb above its start,
 * so above the connection's base address, is refused; so is a segment hiding a dot-segment behind an
 * encoded slash (`..%2Fadmin`), which a provider that decodes before routing would climb with.
 */
export function normalizedProviderPath(path: string): string {
  // Without a dot, a percent sign or a backslash no segment can be or hide a dot-segment: the path stands
  // as it is, less its leading slashes (the loop below answers the same, at a split, decodes and an array).
  if (!UNSAFE_PATH_CHARACTERS.test(path)) return path.replace(LEADING_SLASHES, '')
  return resolvedDotSegments(path)
}

/** normalizedProviderPath for any path, segment by segment (exported for the test that holds the two equal). */
export function resolvedDotSegments(path: string): string {
  const refuse = () =>
    badRequest(
      `path '${path.slice(0, 200)}' leaves the connection's base address; give a path below it, without '..'`,
    )
  const out: string[] = []
  const segments = path.replace(/\\/g, '/').replace(/^\/+/, '').split('/')
  segments.forEach((segment, i) => {
    const decoded = fullyDecoded(segment)
    const last = i === segments.length - 1
    if (isDotSegment(decoded)) {
      if (decoded === '..' && out.pop() === undefined) throw refuse()
      // `a/b/..` means the folder `a/`: keep the trailing slash the dot-segment stood for.
      if (last) out.push('')
      return
    }
    if (decoded.split(/[/\\]/).some(isDotSegment)) throw refuse()
    out.push(segment)
  })
  return out.join('/')
}

/**
 * The provider path arrives as one encoded segment (the SDK: `%2Fv1%2Fusers%3Fx%3D1`) or with literal
 * slashes (curl). A single segment is decoded, and may carry a query of its own. Dot-segments are resolved
 * and may not leave the base address (400).
 */
export function providerTarget(
  rawUrl: string,
): { connectionId: string; path: string; query: string } | undefined {
  const m = PREFIX.exec(rawUrl)
  if (!m) return undefined
  const connectionId = decodeOrRefuse(m[1]!, 'connection_id')
  const rawPath = m[2] ?? ''
  let path = rawPath
  let query = m[3] ?? ''
  if (!rawPath.includes('/')) {
    const decoded = decodeOrRefuse(rawPath, 'path')
    const q = decoded.indexOf('?')
    path = q === -1 ? decoded : decoded.slice(0, q)
    if (q !== -1) query = [decoded.slice(q + 1), query].filter(Boolean).join('&')
    path = path
      .replace(/\\/g, '/')
      .split('/')
      .map((seg) => encodeURI(seg).replace(/[?#]/g, encodeURIComponent))
      .join('/')
  }
  return { connectionId, path: normalizedProviderPath(path), query }
}

/** A connection's base address, parsed once per address (a process serves a bounded set of them). */
const bases = new Map<string, { origin: string; path: string }>()
function baseOf(baseUrl: string): { origin: string; path: string } {
  let base = bases.get(baseUrl)
  if (!base) {
    const url = new URL(baseUrl)
    base = { origin: url.origin, path: `${withoutTrailingSlashes(url.pathname)}/` }
    if (bases.size >= 1000) bases.clear()
    bases.set(baseUrl, base)
  }
  return base
}

/**
 * The provider address for a path, checked (after the URL parser's own resolution) to stay below the base,
 * as the origin and path undici's dispatcher takes, so that it is not serialised and parsed again.
 */
function targetOf(baseUrl: string, path: string, query: string): OutboundTarget {
  const base = baseOf(baseUrl)
  const url = new URL(joinPath(baseUrl, path) + (query ? `?${query}` : ''))
  if (url.origin !== base.origin || !`${url.pathname}/`.startsWith(base.path)) {
    throw badRequest(`path '${path.slice(0, 200)}' leaves the connection's base address`)
  }
  return outboundTarget(url)
}

/**
 * Passthrough reaches the provider with the connection's full credentials, so it is bounded by the grant:
 * reading methods need some read permission, others some write permission.
 */
function checkPassthroughPermission(method: string, permissions: readonly string[]): void {
  const read = READ_METHODS.has(method)
  const suffix = read ? '_read' : '_write'
  if (permissions.some((p) => p.endsWith(suffix))) return
  throw new ApiError(
    403,
    `passthrough ${method} needs a ${read ? 'read' : 'write'} permission (any *${suffix}, such as analytics_event${suffix}); ` +
      `this connection was granted ${permissions.length > 0 ? permissions.join(', ') : 'none'}`,
  )
}

/** One passthrough call, however it reached the server: what the relay reads and where it answers. */
export interface PassthroughExchange {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** The request's body as it arrives, when it has one. */
  readonly body: Readable | undefined
  readonly workspaceId: string
  /** The caller's address, for the API-call record. */
  readonly ip: string | undefined
  readonly note: InboundNote
  /** The call's logger (made on first use by the passthrough door). */
  readonly log: () => FastifyBaseLogger
  /** The caller's response, for the idle bound on its socket (see relayPassthrough). */
  readonly response: ServerResponse
  /** The socket's response, taken over once the provider's status and headers are in. */
  takeOver(): ServerResponse
  /**
   * Lifts the bound on the request body's arrival (UNIGATE_BODY_TIMEOUT_MS) once the upload is relayed,
   * when the relay's idle bound takes over; until then (a refusal before relaying) it holds.
   */
  readonly releaseBodyDeadline?: () => void
}

/**
 * Forwards one call to the provider with the connection's authentication and streams the answer back.
 * Throws an ApiError for a call refused or failed before the answer's status went out; after that, a
 * failure can only cut the answer short.
 */
export async function relayPassthrough(services: Services, call: PassthroughExchange): Promise<void> {
  const { method, note } = call
  const target = providerTarget(call.url)
  if (!target) throw badRequest('passthrough needs /passthrough/{connection_id}/{provider path}')
  const resolved = await services.resolver.resolve(call.workspaceId, target.connectionId)
  if (!resolved) throw notFound(`connection ${target.connectionId} not found`)
  note.connection = resolved.connection
  const { integration, connection } = resolved
  checkPassthroughPermission(method, connection.permissions)
  const override = METHOD_OVERRIDES.find((name) => call.headers[name] !== undefined)
  if (override) throw badRequest(`${override}: not passed on; send the method itself (${method} was sent)`)
  const address = targetOf(integration.baseUrl(connection.credentials), target.path, target.query)
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(call.headers)) {
    if (v === undefined || NOT_FORWARDED.has(k)) continue
    headers[k] = Array.isArray(v) ? v.join(', ') : v
  }
  const what = `passthrough ${method} /${target.path}`
  // From the client, so an OAuth token is refreshed first when it is about to expire. Getting them may ask a
  // token endpoint (a client credentials grant), whose refusal or failure is the provider's, answered as
  // the unified routes answer it (403 to re-authorize, 502, 504); it was a 500 here. A client the token
  // endpoint refuses marks the connection unhealthy first, as there.
  const auth = await resolved.client.currentAuthHeaders().catch(async (err: unknown) => {
    await markUnhealthyIfRefused(services.resolver, resolved, err)
    throw apiErrorFromProvider(err, integration, what) ?? err
  })
  Object.assign(headers, auth)
  const hasBody = call.body !== undefined && method !== 'GET' && method !== 'HEAD'
  // A relay holds one of the provider origin's shared sockets for as long as it lasts, and undici's timeouts
  // stop at the caller's side: its body timeout sleeps while a caller that stopped reading holds the answer
  // back, its headers timeout waits for an upload to end. So the caller's socket may stay idle, while it
  // uploads and while the answer streams, for twice what a provider's pause may last
  // (UNIGATE_PROVIDER_TIMEOUT_MS; twice, so a provider pausing just under its bound is not cut here first);
  // past it Node's server closes the socket, and undici lets the provider's go.
  const idleMs = 2 * services.transport.settings.timeoutMs
  // Each with a listener of its own: a response without one is closed by Node's server all the same, but
  // the test harness's (light-my-request's) requires one.
  const close = () => call.response.destroy()
  // An answer given before the upload ended (a provider refusing it early) leaves the rest of the upload
  // unread on the caller's socket, where Node's server, whose reading of it we took over, would wait for it
  // before the socket's next request: that keep-alive socket hung. Such an answer closes the socket after
  // it, as HTTP servers do with a request body they did not read (RFC 9112 section 9.6).
  const closeIfUploadUnread = () => {
    if (hasBody && call.body?.readableEnded === false) call.response.shouldKeepAlive = false
  }
  if (hasBody) {
    // The upload streams to the provider for as long as the caller sends it, under this idle bound.
    call.releaseBodyDeadline?.()
    call.response.setTimeout(idleMs, close)
    call.body?.once('end', () => call.response.setTimeout(0, close))
  }
  const started = performance.now()
  let relaying: ServerResponse | undefined
  try {
    // The answer goes straight from the provider's socket into ours, with no stream in between, once the
    // provider's status and headers are in.
    await services.transport.pipe(
      address,
      {
        method: method as OutboundMethod,
        headers,
        body: hasBody ? (call.body ?? null) : null,
        limitKey: connection.id,
        workspaceKey: call.workspaceId,
        // A caller that leaves while its call waits for a slot takes the call with it: it is never sent.
        wait: { callerGone: (leave) => callerGone(call.response, leave) },
      },
      ({ status, headers: answered }) => {
        noteProviderTime(note, performance.now() - started)
        if (status === 401) renewAfterRefusal(resolved.client, auth, call)
        const out: Record<string, string | string[]> = {}
        const hopNamed = hopNamedBy(answered.connection)
        for (const [k, v] of Object.entries(answered)) {
          if (v === undefined || NOT_RETURNED.has(k) || hopNamed?.has(k)) continue
          if (k === 'www-authenticate' && promptsForLogin(v)) continue
          out[k] = v
        }
        const length = Number(answered['content-length'])
        noteRelayedAnswer(note, call.ip, status, Number.isFinite(length) && length >= 0 ? length : undefined)
        closeIfUploadUnread()
        relaying = call.takeOver()
        relaying.setTimeout(idleMs, close)
        relaying.writeHead(status, out)
        return relaying
      },
    )
  } catch (err) {
    if (!relaying) {
      closeIfUploadUnread()
      throw apiErrorFromProvider(err, integration, what) ?? err
    }
    // The status line went out already: all that is left is to cut the answer short. undici has closed the
    // answer by now whichever side ended it (the provider dropped it, or the caller went away), and the
    // error reads the same either way.
    call.log().warn({ err }, 'the relayed answer ended early (the provider or the caller closed it)')
    relaying.destroy()
  }
}

/**
 * The provider answered a relayed call 401 to the auth headers it carried (`used`). The 401 is relayed as it
 * is, not retried (a body was streamed to the provider and is gone); but a client credentials token the
 * provider revoked or rotated before its stated expiry is dropped here, before the answer goes out
 * (ClientCredentialsAuth.rejected drops it without waiting on anything), so the caller's next call carries a
 * new one instead of failing until that expiry: the renewal the unified routes make on a 401, without their
 * retry. An OAuth connection's tokens are left as they are (see RefreshingAuth, and the
 * README's passthrough notes): a refresh per relayed 401 would ask the token endpoint, write the store and
 * rotate refresh tokens on every call to a path that answers 401 for its own reasons; they are renewed
 * before their stated expiry, and after a 401 on a unified call.
 */
function renewAfterRefusal(
  client: ProviderClient,
  used: Readonly<Record<string, string>>,
  call: PassthroughExchange,
): void {
  client
    .relayedRefusal(used)
    ?.catch((err: unknown) => call.log().warn({ err }, 'the refused credentials could not be renewed'))
}

/** Calls `leave` once the caller's request has closed (at once if it has already). */
function callerGone(response: ServerResponse, leave: () => void): void {
  if (response.destroyed || response.socket?.destroyed === true) leave()
  else response.once('close', leave)
}

/** The methods passthrough forwards (HEAD is Fastify's, answered from GET's route). */
export const PASSTHROUGH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * Any method on `/passthrough/{connection_id}/{path}`: forwarded with the provider's auth, streamed both ways.
 * A call without a body usually arrives by the passthrough door (passthrough-door.ts) instead, which relays it
 * the same way without Fastify's request lifecycle; these routes take the rest, and describe the API.
 */
export async function passthroughRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // Bodies are forwarded as the raw byte stream, whatever their type: no parsing, no buffering.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))

  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    return relayPassthrough(services, {
      method: request.method,
      url: request.raw.url ?? '',
      headers: request.headers,
      body: request.body as Readable | undefined,
      workspaceId: request.workspaceId,
      ip: request.ip,
      note: inboundNoteOf(request),
      log: () => request.log,
      response: reply.raw,
      takeOver: () => {
        reply.hijack()
        return reply.raw
      },
      releaseBodyDeadline: () => releaseUploadDeadline(request.raw),
    })
  }

  const auth = requireWorkspaceKey(services.apiKeys)
  const schema = {
    tags: ['passthrough'],
    security: [{ jwt: [] }],
    summary: 'Forward any request to the provider with the connection’s authentication',
  }
  for (const url of ['/passthrough/:connection_id', '/passthrough/:connection_id/*']) {
    app.route({ method: [...PASSTHROUGH_METHODS], url, onRequest: auth, schema, handler })
  }
}

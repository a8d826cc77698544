import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { ResolvedConnection } from '../connections/index.js'
import { MODELS } from '../models/index.js'
import { clipApiCallText, type NewApiCall } from './api-call.js'
import type { ApiCallLog } from './api-call-log.js'

/** What a handler learned that the log needs: the connection, and how long the provider took. */
export interface InboundNote {
  connection?: ResolvedConnection['connection']
  endapiMs?: number
  error?: string
  ip?: string
  /** The answer's size, when a handler wrote the answer itself (the reply has no headers to read it from). */
  size?: number
}

// A WeakMap rather than a request decoration: nothing outlives the request, and no route has to know.
const notes = new WeakMap<FastifyRequest, InboundNote>()

/** The request's note, made on first use: what its handler learns for the API-call record. */
export function inboundNoteOf(request: FastifyRequest): InboundNote {
  let note = notes.get(request)
  if (!note) {
    note = {}
    notes.set(request, note)
  }
  return note
}

/** Called by a handler once it has the connection (integration, external_xref and environment come from it). */
export function noteConnection(request: FastifyRequest, resolved: ResolvedConnection): void {
  inboundNoteOf(request).connection = resolved.connection
}

/** Called by a handler that measured the provider's own time (passthrough: until its response headers). */
export function noteProviderTime(note: InboundNote, ms: number): void {
  note.endapiMs = Math.round(ms)
}

/**
 * Called by a handler that writes the provider's answer to the socket itself (a hijacked reply, which
 * skips the onSend hooks): records what `onSend` would have, from the status and size it relayed.
 */
export function noteRelayedAnswer(
  note: InboundNote,
  ip: string | undefined,
  status: number,
  size: number | undefined,
): void {
  note.ip = ip
  if (status >= 400) note.error = errorMessage(status, undefined)
  if (size !== undefined) note.size = size
}

/** Called where an answer is one of our JSON errors written without Fastify's reply (the passthrough door). */
export function noteError(note: InboundNote, ip: string | undefined, message: string, size: number): void {
  note.ip = ip
  note.error = clipApiCallText(message)
  note.size = size
}

/** The SDK's passthrough operationIds; the JSON and raw variants differ only in the body's type. */
export function passthroughName(method: string, contentType: string | string[] | undefined): string {
  const json = String(contentType ?? '').includes('json') ? 'Json' : 'Raw'
  switch (method) {
    case 'GET':
      return 'listPassthroughs'
    case 'POST':
      return `createPassthrough${json}`
    case 'PUT':
      return `updatePassthrough${json}`
    case 'PATCH':
      return `patchPassthrough${json}`
    case 'DELETE':
      return 'removePassthrough'
    default:
      return `${method.toLowerCase()}Passthrough`
  }
}

/** `/analytics/:connection_id/event/:id` → `/analytics/{connection_id}/event/{id}`; a wildcard is the SDK's `{path}`. */
export function routePattern(url: string): string {
  return url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{path}')
}

/** Our own errors are JSON `{ message }`; a provider's error body (passthrough) is never read or kept. */
function errorMessage(status: number, payload: unknown): string {
  if (typeof payload === 'string') {
    try {
      const message = (JSON.parse(payload) as { message?: unknown }).message
      if (typeof message === 'string') return clipApiCallText(message)
    } catch {
      // Not our JSON: fall through to the status.
    }
  }
  return `the provider answered ${status}`
}

function responseSize(reply: FastifyReply): number | undefined {
  const length = Number(reply.getHeader('content-length'))
  return Number.isFinite(length) && length >= 0 ? length : undefined
}

/** Routes whose calls are logged: the unified objects of every category, and passthrough. */
function loggedPrefixes(): string[] {
  const categories = new Set(MODELS.map((m) => m.category))
  return ['/passthrough/', ...[...categories].map((c) => `/${c}/`)]
}

function appendHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  if (existing === undefined) return [hook]
  return Array.isArray(existing) ? [...existing, hook] : [existing, hook]
}

/** What one answered call was, as the API-call record needs it, whichever way it was served. */
export interface InboundFacts {
  readonly workspaceId: string
  readonly note: InboundNote
  /** The connection id the path named, for a call that never resolved one (a 404, say). */
  readonly connectionId: string | undefined
  readonly method: string
  /** The SDK's operationId of the call. */
  readonly name: string
  /** The route in the SDK's form: `/analytics/{connection_id}/event`. */
  readonly pattern: string
  readonly status: number
  readonly size: number | undefined
  readonly userAgent: string | undefined
  readonly elapsedMs: number
}

/** The API-call row of an answered inbound call. */
export function inboundCall(facts: InboundFacts): NewApiCall {
  const { note, status } = facts
  const c = note.connection
  const connectionId = c?.id ?? facts.connectionId
  // One object, absent fields undefined (apiCallRow stores them as null): a spread of a fresh object per
  // optional field made eight objects a call.
  return {
    workspace_id: facts.workspaceId,
    connection_id: connectionId ? clipApiCallText(connectionId) : undefined,
    integration_type: c?.integration_type ?? 'unknown',
    external_xref: c?.external_xref || undefined,
    environment: c?.environment,
    type: 'inbound',
    name: facts.name,
    method: facts.method,
    path: `${facts.method} ${facts.pattern}`,
    status,
    error: status >= 400 ? (note.error ?? `failed with ${status}`) : undefined,
    size: facts.size,
    ip_address: note.ip || undefined,
    user_agent: facts.userAgent ? clipApiCallText(facts.userAgent) : undefined,
    // Billable as tool calls are: the connection was used and the call succeeded.
    is_billable: c !== undefined && status < 400,
    unified_response_time: Math.round(facts.elapsedMs),
    endapi_response_time: note.endapiMs,
  }
}

/**
 * Records the REST API's calls to unified objects and passthrough as API calls of type `inbound`. The
 * hooks are attached per route when routes are registered (other routes pay nothing), and a call is an
 * in-memory push after the response went out; the log writes in batches. Kept: what was called, by
 * whom, how it went; never the key, the query string or a body. Must run before the routes register.
 */
export function installInboundCallLog(app: FastifyInstance, apiCalls: ApiCallLog): void {
  const prefixes = loggedPrefixes()
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!prefixes.some((p) => route.url.startsWith(p))) return
    const passthrough = route.url.startsWith('/passthrough/')
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId
    const pattern = routePattern(route.url)

    // Callback hooks, not async ones: neither waits for anything, and each promise costs Fastify's hook
    // runner microtasks on every logged call.
    const onSend = (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: Error | null, payload?: unknown) => void,
    ): void => {
      if (request.workspaceId) {
        const note = inboundNoteOf(request)
        // Read now: once a streamed answer ends, the socket may be gone and with it the address.
        note.ip = request.ip
        // Only failures are looked at, and only our own JSON error bodies are parsed.
        if (reply.statusCode >= 400) note.error = errorMessage(reply.statusCode, payload)
      }
      done(null, payload)
    }

    const onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      try {
        record(request, reply)
      } catch (err) {
        // As Fastify did with the async hook's rejection: logged; the answer went out already.
        request.log.error({ err }, 'could not record the API call')
      }
      done()
    }

    const record = (request: FastifyRequest, reply: FastifyReply) => {
      // Only calls authenticated with a workspace key: a refused key has no workspace to log into.
      if (!request.workspaceId) return
      const note = notes.get(request) ?? {}
      const params = request.params as { connection_id?: string } | undefined
      apiCalls.record(
        inboundCall({
          workspaceId: request.workspaceId,
          note,
          connectionId: params?.connection_id,
          method: request.method,
          name: passthrough
            ? passthroughName(request.method, request.headers['content-type'])
            : (operationId ?? pattern),
          pattern,
          status: reply.statusCode,
          size: note.size ?? responseSize(reply),
          userAgent: request.headers['user-agent'],
          elapsedMs: reply.elapsedTime,
        }),
      )
    }

    route.onSend = appendHook(route.onSend, onSend)
    route.onResponse = appendHook(route.onResponse, onResponse)
    if (passthrough) {
      // Fastify runs onResponse once an answer has finished; a relayed answer cut short after its status
      // went out (the provider dropped it, the caller left) never finishes, and is recorded when it closes.
      const onCutShort = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
        reply.raw.once('close', () => {
          if (reply.raw.headersSent && !reply.raw.writableFinished) onResponse(request, reply, () => {})
        })
        done()
      }
      route.preHandler = appendHook(route.preHandler, onCutShort)
    }
  })
}

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { InboundNote } from '../apicalls/index.js'
import { inboundCall, noteError, passthroughName } from '../apicalls/index.js'
import { unauthorized } from '../errors.js'
import type { Services } from '../services.js'
import { keyFromHeader } from './auth.js'
import { type ErrorAnswer, errorAnswerOf } from './errors.js'
import { PASSTHROUGH_METHODS, relayPassthrough } from './routes/passthrough.js'

/** A request handler that answers `true` when it took the call, `false` to leave it to the next one. */
export type Door = (req: IncomingMessage, res: ServerResponse) => boolean

export interface DoorOptions {
  /** The server's logger, for the request logs Fastify would write and for failures. */
  readonly log: () => FastifyBaseLogger
  /** Request ids from the same sequence as Fastify's (its `genReqId`), so log lines never share one. */
  readonly nextRequestId: () => string
  /** The router's `maxParamLength`: a longer connection id is Fastify's 414, left to it. */
  readonly maxParamLength: number
  /** True once the server is closing: Fastify answers those calls (503). */
  readonly closing: () => boolean
}

const PREFIX = '/passthrough/'
const DOOR_METHODS = new Set<string>(PASSTHROUGH_METHODS)
const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * The passthrough door: a passthrough call without a body is relayed from the HTTP server's request event,
 * before Fastify sees it, by the same relay as the passthrough routes (`relayPassthrough`), with the same key
 * check, grant, errors, request logs and API-call record. Written by hand because it is the part of a relay
 * no library does for us: Fastify's per-request lifecycle (its request and reply objects, routing, hooks and
 * child logger) cost a relayed call about a fifth of its CPU, none of it needed to forward bytes
 * (BENCHMARKS.md, twelfth round). Calls with a body, HEAD, and anything this door is not sure to answer as
 * the routes would (a percent sign in the connection id, an id past the router's length) go to Fastify.
 */
export function passthroughDoor(services: Services, options: DoorOptions): Door {
  const { apiKeys, apiCalls } = services
  const logCalls = services.config.logInboundCalls

  const takes = (req: IncomingMessage): boolean => {
    const url = req.url
    if (url === undefined || !url.startsWith(PREFIX) || !DOOR_METHODS.has(req.method ?? '')) return false
    if (req.method !== 'GET') {
      // As Fastify reads it (lib/handle-request.js): with none of these the call has no body to parse.
      const h = req.headers
      if (h['content-type'] !== undefined || h['transfer-encoding'] !== undefined) return false
      if (h['content-length'] !== undefined && h['content-length'] !== '0') return false
    }
    const end = idEndOf(url)
    const idLength = end - PREFIX.length
    if (idLength === 0 || idLength > options.maxParamLength) return false
    // The router decodes the id (and may refuse it) where the relay decodes it itself: left to the routes.
    if (url.lastIndexOf('%', end) >= PREFIX.length) return false
    if (!routerReads(url)) return false
    return !options.closing()
  }

  return (req, res) => {
    if (!takes(req)) return false
    try {
      serve(req, res)
    } catch (err) {
      // A throw here would escape the server's request listener and end the process; Fastify's handler
      // would have answered a 500.
      if (res.headersSent) res.destroy()
      else writeError(res, errorAnswerOf(err, options.log))
    }
    return true
  }

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now()
    const method = req.method ?? 'GET'
    const url = req.url ?? ''
    const reqId = options.nextRequestId()
    let logger: FastifyBaseLogger | undefined
    const log = () => {
      logger ??= options.log().child({ reqId })
      return logger
    }
    const logsRequests = infoEnabled(options.log())
    if (logsRequests) log().info({ req: { id: reqId, method, url } }, 'incoming request')
    const note: InboundNote = {}
    let workspaceId: string | undefined
    let done = false
    const finished = () => {
      // A caller that left before the answer began got none: there is no status to record.
      if (done || !res.headersSent) return
      done = true
      // Fastify writes this line for an answer that finished, none for one cut short.
      if (logsRequests && res.writableFinished) {
        log().info(
          { res: { statusCode: res.statusCode }, responseTime: performance.now() - started },
          'request completed',
        )
      }
      if (!logCalls || workspaceId === undefined) return
      try {
        apiCalls.record(
          inboundCall({
            workspaceId,
            note,
            connectionId: connectionIdOf(url),
            method,
            name: passthroughName(method, req.headers['content-type']),
            pattern: patternOf(url),
            status: res.statusCode,
            size: note.size ?? lengthOf(res),
            userAgent: req.headers['user-agent'],
            elapsedMs: performance.now() - started,
          }),
        )
      } catch (err) {
        log().error({ err }, 'could not record the API call')
      }
    }
    // 'close' too: a relayed answer cut short after its status went out (the provider dropped it, the caller
    // left) never finishes, and is still a call made.
    res.once('finish', finished)
    res.once('close', finished)

    // Never throws: it ends promise chains, where a throw would be an unhandled rejection, the process's end.
    const fail = (err: unknown) => {
      try {
        if (res.headersSent) {
          res.destroy()
          return
        }
        const answer = errorAnswerOf(err, log)
        const size = writeError(res, answer)
        if (workspaceId !== undefined) noteError(note, req.socket.remoteAddress, answer.body.message, size)
      } catch (failure) {
        log().error({ err: failure }, 'could not answer the error')
        res.destroy()
      }
    }

    const relay = (claims: { workspaceId: string } | undefined) => {
      if (!claims) {
        fail(unauthorized('invalid or revoked API key'))
        return
      }
      workspaceId = claims.workspaceId
      relayPassthrough(services, {
        method,
        url,
        headers: req.headers,
        body: undefined,
        workspaceId,
        ip: req.socket.remoteAddress,
        note,
        log,
        response: res,
        takeOver: () => res,
      }).catch(fail)
    }

    const key = keyFromHeader(req.headers.authorization)
    if (!key) {
      fail(unauthorized('missing API key: send the workspace API key in the authorization header'))
      return
    }
    const known = apiKeys.verifiedBefore(key)
    if (known !== 'unknown') relay(known)
    else apiKeys.verify(key).then(relay).catch(fail)
  }
}

/**
 * Whether Fastify's router takes this address at all: it ends the path at `?` or `#` and decodes it with
 * `decodeURI` when it holds an escape (find-my-way lib/url-sanitizer.js), answering 400 itself where that
 * throws. Those, and a `#` the relay would read otherwise, are left to it.
 */
function routerReads(url: string): boolean {
  if (url.includes('#')) return false
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (!path.includes('%')) return true
  try {
    decodeURI(path)
    return true
  } catch {
    return false
  }
}

/** Where the connection id of a passthrough address ends: at its first `/` or `?`, or at the end. */
function idEndOf(url: string): number {
  let end = PREFIX.length
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++
  return end
}

/** The connection id as the route's parameter would read it (the door takes only ids without `%`). */
function connectionIdOf(url: string): string {
  return url.slice(PREFIX.length, idEndOf(url))
}

/** The route a call matched, in the SDK's form, as the routes' API-call records name it. */
function patternOf(url: string): string {
  return url[idEndOf(url)] === '/' ? '/passthrough/{connection_id}/{path}' : '/passthrough/{connection_id}'
}

/** Writes an error answer as Fastify's reply would send it; answers its size in bytes. */
function writeError(res: ServerResponse, answer: ErrorAnswer): number {
  const text = JSON.stringify(answer.body)
  const size = Buffer.byteLength(text)
  res.writeHead(answer.status, { ...answer.headers, 'content-type': JSON_TYPE, 'content-length': size })
  res.end(text)
  return size
}

function lengthOf(res: ServerResponse): number | undefined {
  const length = Number(res.getHeader('content-length'))
  return Number.isFinite(length) && length >= 0 ? length : undefined
}

/** Whether the logger writes info lines, as Fastify's request logs are (its no-op logger writes none). */
function infoEnabled(log: FastifyBaseLogger): boolean {
  const pino = log as { isLevelEnabled?: (level: string) => boolean }
  return typeof pino.isLevelEnabled === 'function' && pino.isLevelEnabled('info')
}

import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorBody } from './errors.js'

/** The deadline of each request still arriving, by request: the passthrough relay releases its own. */
const deadlines = new WeakMap<IncomingMessage, NodeJS.Timeout>()

/**
 * A request's body (at most UNIGATE_BODY_LIMIT_BYTES) must have arrived within `deadlineMs` of its headers
 * (UNIGATE_BODY_TIMEOUT_MS); past it the caller is answered 408, if nothing was answered yet, and its
 * connection is closed. Fastify sets no request timeout of Node's server, so a client that sent a part of a
 * body and then nothing, or a byte now and then, held its socket and the body read so far for ever: anyone,
 * without a key (the native webhook receiver, the key page, an API route's 401 answered before the body),
 * could open connections until the process ran out of file descriptors or memory.
 *
 * Armed by the server's request listener, before the passthrough door and before Fastify routes: an answer
 * given before the body was read (an unknown route's 404, a malformed address's 400, a 401) leaves Node's
 * server reading and dropping the rest of the body, which a byte now and then kept going for ever, so the
 * deadline then closes the socket. A passthrough relay, whose upload streams for as long as the caller keeps
 * sending, releases it once it relays (its own idle bound then applies, see routes/passthrough.ts).
 */
export function boundUpload(req: IncomingMessage, res: ServerResponse, deadlineMs: number): void {
  if (!hasBody(req) || req.complete) return
  const timer = setTimeout(() => {
    deadlines.delete(req)
    if (req.complete) return
    if (res.headersSent) {
      req.socket.destroy()
      return
    }
    const body = JSON.stringify(
      errorBody(
        408,
        `the request body did not arrive within ${deadlineMs} ms (UNIGATE_BODY_TIMEOUT_MS); the connection is closed`,
      ),
    )
    res.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
    res.end(body, () => req.socket.destroy())
  }, deadlineMs)
  timer.unref()
  deadlines.set(req, timer)
  const clear = () => releaseUploadDeadline(req)
  req.once('end', clear)
  req.once('close', clear)
}

/** As Node reads a request: a body comes only with a non-zero content-length or a transfer-encoding. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** Lifts the deadline of a request whose body is streamed on by its handler (a passthrough relay). */
export function releaseUploadDeadline(req: IncomingMessage): void {
  const timer = deadlines.get(req)
  if (timer === undefined) return
  clearTimeout(timer)
  deadlines.delete(req)
}

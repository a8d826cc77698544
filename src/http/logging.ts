import type { FastifyServerOptions } from 'fastify'
import pino from 'pino'

/** Paths whose next segment is a capability: holding the URL is the permission (the hosted key page). */
const CAPABILITY_PREFIXES = ['/unified/integration/key/']

const PASSTHROUGH = /^(\/passthrough\/[^/]+\/)(.*)$/

/** Decodes a path segment as far as it goes (a client may encode it twice), without throwing. */
function decodeFully(segment: string): string {
  let text = segment
  for (let i = 0; i < 4 && text.includes('%'); i++) {
    try {
      const next = decodeURIComponent(text)
      if (next === text) break
      text = next
    } catch {
      break
    }
  }
  return text
}

/**
 * A request path as it may be logged: no query string (tokens travel there: `?code=`, `?token_auth=`),
 * capability tokens replaced by `<redacted>`, and a passthrough path given as one encoded segment (the
 * SDK's `%2Findex.php%3Fmodule%3DAPI%26token_auth%3D…`) decoded far enough to drop the provider query it
 * carries. Every place that logs a path uses this.
 */
export function redactPath(url: string): string {
  let path = url.split(/[?#]/, 1)[0] ?? ''
  for (const prefix of CAPABILITY_PREFIXES) {
    if (path.startsWith(prefix)) {
      const rest = path.slice(prefix.length)
      const slash = rest.indexOf('/')
      path = `${prefix}<redacted>${slash === -1 ? '' : rest.slice(slash)}`
    }
  }
  const passthrough = PASSTHROUGH.exec(path)
  if (passthrough) {
    const kept: string[] = []
    for (const segment of passthrough[2]!.split('/')) {
      const decoded = decodeFully(segment)
      const cut = decoded.search(/[?#]/)
      kept.push(encodeURIComponent(cut === -1 ? decoded : decoded.slice(0, cut)))
      if (cut !== -1) break
    }
    path = `${passthrough[1]}${kept.join('/')}`
  }
  return path
}

/**
 * pino's error serializer names the error's type after its constructor's `name`. The compiled server is a
 * bundle (scripts/build.ts) that keeps no function names, so a class whose name clashes in the bundle is
 * `SocketError2` there; our errors (src/errors.ts), undici's and Node's all set `name` itself, so the type
 * logged is `name` wherever it says more than `Error`.
 */
export function serializeError(err: Error): pino.SerializedError {
  const out = pino.stdSerializers.err(err)
  const name = (err as { name?: unknown }).name
  if ((out as unknown) !== err && typeof name === 'string' && name !== '' && name !== 'Error') out.type = name
  return out
}

/** What every pino logger of the server shares: how errors are written. */
export const errorSerializers = { err: serializeError }

/**
 * Structured JSON logs. Only the redacted path of a URL is logged (see redactPath), and headers
 * (authorization, cookies) are never logged at all.
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', '*.secret'],
      censor: '[redacted]',
    },
    serializers: {
      ...errorSerializers,
      req(req: { method: string; url: string; id: string }) {
        return { id: req.id, method: req.method, path: redactPath(req.url) }
      },
    },
  }
}

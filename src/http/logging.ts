import type { FastifyServerOptions } from 'fastify'

/**
 * Structured JSON logs. Only the path of a URL is logged: query strings can carry tokens, and headers
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
      req(req: { method: string; url: string; id: string }) {
        return { id: req.id, method: req.method, path: req.url.split('?')[0] }
      },
    },
  }
}

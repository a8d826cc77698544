import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * Umami's error codes and messages per status: `{error: {message, code, status}}`.
 * Source: umami-software/umami@v3.1.0:src/lib/response.ts.
 */
const CODES: Readonly<Record<number, { code: string; message: string }>> = {
  400: { code: 'bad-request', message: 'Bad request' },
  401: { code: 'unauthorized', message: 'Unauthorized' },
  403: { code: 'forbidden', message: 'Forbidden' },
  404: { code: 'not-found', message: 'Not found' },
  405: { code: 'method-not-allowed', message: 'Method not allowed.' },
  429: { code: 'too-many-requests', message: 'Too many requests.' },
  500: { code: 'server-error', message: 'Server error' },
}

export function umamiErrorBody(status: number, message?: string, extra?: Record<string, unknown>) {
  const known = CODES[status] ?? { code: 'server-error', message: 'Server error' }
  return { error: { code: known.code, message: message ?? known.message, status, ...extra } }
}

export class UmamiHttpError extends Error {
  constructor(
    readonly status: number,
    message?: string,
    /** More keys of the error object (a zod error tree). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message ?? CODES[status]?.message ?? 'Server error')
  }
}

/**
 * A request that fails its zod schema: `badRequest(z.treeifyError(error))`, i.e. "Bad request" with the
 * tree's `errors` spread into the error object (umami-software/umami@v3.1.0:src/lib/request.ts
 * `parseRequest`, src/lib/response.ts).
 */
export const schemaError = (errors: readonly string[], properties?: Record<string, unknown>) =>
  new UmamiHttpError(400, 'Bad request', { errors, ...(properties ? { properties } : {}) })

export const badRequest = (message: string) => new UmamiHttpError(400, message)
export const notFound = () => new UmamiHttpError(404)
/**
 * What Umami answers for a website (or team) the caller may not see, including one that does not exist:
 * `canViewWebsite` is false, so 401. Source: umami-software/umami@v3.1.0:src/permissions/website.ts and
 * src/app/api/websites/[websiteId]/route.ts.
 */
export const unauthorized = () => new UmamiHttpError(401)

/** Umami Cloud sends no wait header with its 429. */
export function umamiFaultResponse(status: number): FaultResponse {
  return { body: umamiErrorBody(status) }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof UmamiHttpError)
      return reply.code(err.status).send(umamiErrorBody(err.status, err.message, err.extra))
    if (err.statusCode && err.statusCode < 500) {
      return reply.code(err.statusCode).send(umamiErrorBody(err.statusCode, err.message))
    }
    return reply.code(500).send(umamiErrorBody(500))
  })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(umamiErrorBody(404)))
}

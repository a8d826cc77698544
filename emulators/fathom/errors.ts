import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

export class FathomHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A body other than `{error: message}` (validation errors). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/**
 * A failed validation: 400 with an `errors` object keyed by field, each an array of messages
 * (https://usefathom.com/api/v1/errors: "Validation errors ... return an errors object keyed by field name").
 * The field is read from the Laravel-style message ("The limit must be ...").
 */
export const invalid = (message: string) => {
  const field = /^The (?:selected )?([a-z_ ]+?) (?:field|must|does|is)\b/
    .exec(message)?.[1]
    ?.replace(/ /g, '_')
  return new FathomHttpError(400, message, { errors: { [field ?? 'request']: [message] } })
}
export const notFound = () => new FathomHttpError(404, 'The requested resource could not be found.')

/**
 * Without `Accept: application/json`, Fathom answers errors with an HTML page; with it, `{error}` or a
 * validation `errors` object (https://usefathom.com/api/v1/errors).
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  body?: Record<string, unknown>,
) {
  const accept = String(request.headers.accept ?? '')
  if (!accept.includes('application/json')) {
    return reply
      .code(status)
      .type('text/html; charset=UTF-8')
      .send(`<!DOCTYPE html><html><head><title>Error</title></head><body>${status}</body></html>`)
  }
  return reply.code(status).send(body ?? { error: message })
}

export function fathomFaultResponse(status: number): FaultResponse {
  return { body: { error: status === 429 ? 'Too Many Attempts.' : 'Server Error' } }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof FathomHttpError) return sendError(request, reply, err.status, err.message, err.body)
    if (err.statusCode && err.statusCode < 500) return sendError(request, reply, err.statusCode, err.message)
    return sendError(request, reply, 500, 'Server Error')
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, 404, 'The requested resource could not be found.'),
  )
}

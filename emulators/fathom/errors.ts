import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

export class FathomHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export const invalid = (message: string) => new FathomHttpError(422, message)
export const notFound = () => new FathomHttpError(404, 'The requested resource could not be found.')

/**
 * Without `Accept: application/json`, Fathom answers errors with an HTML page; with it, `{error}` or a
 * validation `errors` object (https://usefathom.com/api/v1/errors).
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  const accept = String(request.headers.accept ?? '')
  if (!accept.includes('application/json')) {
    return reply
      .code(status)
      .type('text/html; charset=UTF-8')
      .send(`<!DOCTYPE html><html><head><title>Error</title></head><body>${status}</body></html>`)
  }
  return reply.code(status).send({ error: message })
}

export function fathomFaultResponse(status: number): FaultResponse {
  return { body: { error: status === 429 ? 'Too Many Attempts.' : 'Server Error' } }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof FathomHttpError) return sendError(request, reply, err.status, err.message)
    if (err.statusCode && err.statusCode < 500) return sendError(request, reply, err.statusCode, err.message)
    return sendError(request, reply, 500, 'Server Error')
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, 404, 'The requested resource could not be found.'),
  )
}

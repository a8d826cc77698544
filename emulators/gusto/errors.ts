import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * Gusto's error object: `{errors: [{error_key, category, message}]}` (Gusto OpenAPI, `Not-Found-Error-Object`
 * and `Unprocessable-Entity-Error-Object`; https://docs.gusto.com/embedded-payroll/docs/error-categories).
 */
export class GustoHttpError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly errorKey = 'request',
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
  }

  body() {
    return { errors: [{ error_key: this.errorKey, category: this.category, message: this.message }] }
  }
}

/** "The requested resource does not exist. Make sure the provided UUID is valid." (404 of every GET). */
export const notFound = () => new GustoHttpError(404, 'not_found', 'The requested resource was not found.')

/** 422 `invalid_attribute_value` for a parameter Gusto refuses. */
export const invalid = (key: string, message: string) =>
  new GustoHttpError(422, 'invalid_attribute_value', message, key)

export function gustoFaultResponse(status: number): FaultResponse {
  if (status === 429) {
    // "Retry-After ... only returned when you've hit your rate limit" (https://docs.gusto.com/embedded-payroll/docs/rate-limits).
    return { body: '', headers: { 'retry-after': '1' } }
  }
  return {
    body: { errors: [{ error_key: 'base', category: 'internal_error', message: 'Internal Server Error' }] },
  }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof GustoHttpError)
      return reply
        .code(err.status)
        .headers({ ...err.headers })
        .send(err.body())
    if (err.statusCode && err.statusCode < 500)
      return reply
        .code(err.statusCode)
        .send(new GustoHttpError(err.statusCode, 'invalid_request', err.message).body())
    return reply
      .code(500)
      .send(new GustoHttpError(500, 'internal_error', 'Internal Server Error', 'base').body())
  })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFound().body()))
}

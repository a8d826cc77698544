import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * Lever's error body is `{code, message}`, the code naming the class of error; a missing record is
 * `{"code":"NotFoundError","message":"That requisition field doesn't exist on your account"}` as recorded
 * from Lever (amp-labs/connectors@50b6554:providers/lever/test/delete-missing-requisition-fields.json). The
 * statuses are those of https://hire.lever.co/developer/documentation#responses-and-errors; the messages
 * other than the recorded one are in our words.
 */
export class LeverHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new LeverHttpError(400, 'BadRequestError', message)
export const unauthorized = () => new LeverHttpError(401, 'UnauthorizedError', 'Invalid API key')
/**
 * A token whose scopes do not allow the operation. 403 is Lever's status for "Your Lever account settings don't
 * authorize you to perform the requested operation" (#responses-and-errors); Lever documents no body for it, so
 * the code follows the `<Name>Error` codes Lever answers (`UnauthorizedError`, `NotFoundError`) and the message,
 * naming the scopes that would allow it, is ours.
 */
export const forbiddenScope = (scopes: readonly string[]) =>
  forbidden(
    scopes.length > 0
      ? `This access token was not granted ${scopes.join(' or ')}`
      : 'This operation is not available to OAuth access tokens',
  )
/**
 * A request for confidential data from a key or token without access to it: "any request to retrieve
 * confidential data will return an access error" (#confidential-data). Lever names neither status nor body;
 * 403 is its status for what the account's settings do not authorize (#responses-and-errors), the rest is ours.
 */
export const forbiddenConfidential = () =>
  forbidden('This API key or access token has not been granted access to confidential data')
function forbidden(message: string) {
  return new LeverHttpError(403, 'ForbiddenError', message)
}
export const notFound = (what: string) =>
  new LeverHttpError(404, 'NotFoundError', `That ${what} doesn't exist on your account`)
export const tooMany = () =>
  new LeverHttpError(429, 'TooManyRequestsError', 'Rate limit exceeded, please retry later')

export function leverFaultResponse(status: number): FaultResponse {
  const codes: Record<number, string> = {
    400: 'BadRequestError',
    401: 'UnauthorizedError',
    403: 'ForbiddenError',
    404: 'NotFoundError',
    429: 'TooManyRequestsError',
    503: 'ServiceUnavailableError',
  }
  return { body: { code: codes[status] ?? 'InternalServerError', message: 'Emulated fault' } }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof LeverHttpError)
      return reply.code(err.status).send({ code: err.code, message: err.message })
    if (err.statusCode && err.statusCode < 500)
      return reply.code(err.statusCode).send({ code: 'BadRequestError', message: err.message })
    return reply.code(500).send({ code: 'InternalServerError', message: 'Internal server error' })
  })
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ code: 'NotFoundError', message: "That resource doesn't exist on your account" }),
  )
}

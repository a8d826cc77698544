import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * A BambooHR error: the status, an empty body and the detail in the `X-BambooHR-Error-Message` header ("for
 * many errors, Bamboo will add a header X-BambooHR-Error-Message that describes the error",
 * BambooHR/bhr-api-php@64a792d:examples.php; its client reads the header before the body,
 * BambooHR/bhr-api-php@080b97d:src/Http/GuzzleHttpClient.php).
 */
export class BamboohrHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** A JSON body, for the APIs that answer one (the Webhooks API's `{errors: [...]}`). */
    readonly json?: unknown,
  ) {
    super(message)
  }
}

/**
 * A Webhooks API failure: a JSON body `{errors: [{error, ...}]}` (`WebhookError`, `WebhookBadRequest` in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml).
 */
export const webhookError = (status: number, error: string, extra: Record<string, unknown> = {}) =>
  new BamboohrHttpError(status, error, {}, { errors: [{ error, ...extra }] })

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  return reply
    .code(status)
    .headers({ 'x-bamboohr-error-message': message, ...headers })
    .send('')
}

/**
 * Too many requests: 429 (or 503) with Retry-After (BambooHR/bhr-api-php@a6a10ca:GETTING_STARTED.md, "Rate
 * Limiting"; lib/ApiErrorHelper.php: 503 "Check the Retry-After header if provided").
 */
export function bamboohrFaultResponse(status: number): FaultResponse {
  const limited = status === 429 || status === 503
  return {
    body: '',
    headers: {
      'x-bamboohr-error-message': limited
        ? 'Rate limit exceeded'
        : status === 401
          ? 'Invalid API key'
          : status < 500
            ? 'Request refused'
            : 'Internal error',
      ...(limited ? { 'retry-after': '1' } : {}),
    },
  }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request: FastifyRequest, reply) => {
    if (err instanceof BamboohrHttpError && err.json !== undefined)
      return reply.code(err.status).send(err.json)
    if (err instanceof BamboohrHttpError) return sendError(reply, err.status, err.message, { ...err.headers })
    if (err.statusCode && err.statusCode < 500) return sendError(reply, err.statusCode, err.message)
    return sendError(reply, 500, 'Internal error')
  })
  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'Not found'))
}

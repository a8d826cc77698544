import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'
import { RATE_WINDOW_MS } from './constants.js'

export class GreenhouseHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = { message },
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
  }
}

/**
 * A parameter that fails validation: 422 (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, error_handler). ASSUMPTION: the body keeps v1's
 * `{message: "Validation error", errors: [{message, field}]}`
 * (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Validation); the v3 error
 * bodies are not in the pages we could read. The messages are ours.
 */
export const invalid = (field: string, message: string) =>
  new GreenhouseHttpError(422, 'Validation error', {
    message: 'Validation error',
    errors: [{ message, field }],
  })

/**
 * 401, 403, 404 and 429: ASSUMPTION, their v3 bodies are not in the pages we could read; these `{message}`
 * bodies are our wording in the shape of v1's documented ones.
 */
export const unauthorized = () =>
  new GreenhouseHttpError(401, 'A valid access token is required: Authorization: Bearer <token>')

/** A token endpoint refusal, RFC 6749 section 5.2 (ASSUMPTION, see auth.ts). */
export const oauthError = (status: number, error: string) => new GreenhouseHttpError(status, error, { error })
export const forbidden = (message: string) => new GreenhouseHttpError(403, message)
export const notFound = () => new GreenhouseHttpError(404, 'Resource not found')

/**
 * The 429 headers: "the X-RateLimit-Reset header is the timestamp indicating when you can try again while
 * the Retry-After header is the number of seconds" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Rate limiting), kept for v3
 * (ASSUMPTION, see constants.ts). The reset is given here in epoch seconds.
 */
export function rateLimitHeaders(limit: number, resetAtMs: number, now: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(Math.ceil(resetAtMs / 1000)),
    'retry-after': String(Math.max(1, Math.ceil((resetAtMs - now) / 1000))),
  }
}

export function greenhouseFaultResponse(status: number): FaultResponse {
  if (status === 429) {
    const now = Date.now()
    return {
      body: { message: 'Rate limit exceeded' },
      headers: rateLimitHeaders(50, now + RATE_WINDOW_MS, now),
    }
  }
  if (status === 401) return { body: unauthorized().body }
  return { body: { message: status >= 500 ? 'Internal Server Error' : 'Error' } }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof GreenhouseHttpError) {
      return reply.code(err.status).headers(err.headers).send(err.body)
    }
    if (err.statusCode && err.statusCode < 500)
      return reply.code(err.statusCode).send({ message: err.message })
    return reply.code(500).send({ message: 'Internal Server Error' })
  })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFound().body))
}

import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/** Plausible's messages (plausible/analytics@181ac2cf:lib/plausible_web/plugs/authorize_public_api.ex send_error). */
export const MESSAGES = {
  missingKey: 'Missing API key. Please use a valid Plausible API key as a Bearer Token.',
  invalidKey:
    "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.",
  rateLimited:
    'Too many API requests. Your API key is limited to 600 requests per hour. Please contact us to request more capacity.',
  /** A scope the key lacks, outside the Stats API (same file, send_error for :invalid_api_key). */
  invalidKeyForResource:
    "Invalid API key. Please make sure you're using a valid API key with access to the resource you've requested.",
  missingSiteId: 'Missing site ID. Please provide the required site_id parameter with your request.',
} as const

export class PlausibleHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new PlausibleHttpError(400, message)

/**
 * Plausible answers errors as `{"error": "<message>"}` and sends no wait header with its 429
 * (plausible/analytics@ef962824:lib/plausible_web/controllers/api/helpers.ex; authorize_public_api.ex).
 * The 429 names the key's hourly limit, 600 unless the team's was raised.
 */
export function plausibleFaultResponse(status: number): FaultResponse {
  const message =
    status === 429 ? MESSAGES.rateLimited : status === 401 ? MESSAGES.invalidKey : 'Internal server error'
  return { body: { error: message } }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof PlausibleHttpError) return reply.code(err.status).send({ error: err.message })
    if (err.statusCode && err.statusCode < 500) return reply.code(err.statusCode).send({ error: err.message })
    return reply.code(500).send({ error: 'Internal server error' })
  })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Not found' }))
}

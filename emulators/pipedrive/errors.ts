import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * Pipedrive's failure body: `{success: false, error, ...}` (v1 adds `errorCode` and `error_info`; v2
 * answers `code`, `data: null`, `additional_data: null`: https://pipedrive.readme.io/docs/core-api-concepts-http-status-codes,
 * https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide). Wording beyond the docs' examples is ours.
 */
export class PipedriveHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  /** Webhooks API failures name their fields in `errors` and carry no `error` (addWebhook's 400 example). */
  body(): Record<string, unknown> {
    if ('errors' in this.extra) return { success: false, ...this.extra }
    return { success: false, error: this.message, ...this.extra }
  }
}

const INFO = 'Please check developers.pipedrive.com for more information about Pipedrive API.'

/** The 401 every Pipedrive API answers to a missing or unknown token. */
export const unauthorized = () =>
  new PipedriveHttpError(401, 'unauthorized access', { errorCode: 401, error_info: INFO })

/** A v2 validation failure (v2 refuses what v1 coerced: strings for numbers, 1/0 for booleans). */
export const invalid = (message: string) =>
  new PipedriveHttpError(400, message, {
    code: 'ERR_SCHEMA_VALIDATION_FAILED',
    error_info: INFO,
    data: null,
    additional_data: null,
  })

export const personNotFound = () =>
  new PipedriveHttpError(404, 'Person not found', {
    code: 'ERR_NOT_FOUND',
    error_info: INFO,
    data: null,
    additional_data: null,
  })

/**
 * An OAuth token used on an endpoint outside its app's scopes: 403 "Scope and URL mismatch"
 * (https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes, "API request"), with the body
 * Pipedrive answered in https://github.com/pipedrive/client-php/issues/14:
 * `{"success":false,"error":"Scope and URL mismatch","errorCode":403}`.
 */
export const scopeMismatch = () => new PipedriveHttpError(403, 'Scope and URL mismatch', { errorCode: 403 })

/**
 * A 429, for the burst window and the spent daily budget alike: "Request over limit", the one message
 * Pipedrive names for it ("API requests limit reached for a company":
 * https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes, "API request").
 */
export const overLimit = (headers: Record<string, string>) =>
  new PipedriveHttpError(429, 'Request over limit', { errorCode: 429, error_info: INFO }, headers)

export function pipedriveFaultResponse(status: number): FaultResponse {
  if (status === 429) return { body: overLimit({}).body() }
  if (status === 401) return { body: unauthorized().body() }
  return { body: new PipedriveHttpError(status, 'Internal server error', { errorCode: status }).body() }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof PipedriveHttpError) return reply.code(err.status).headers(err.headers).send(err.body())
    if (err.statusCode && err.statusCode < 500)
      return reply.code(err.statusCode).send(invalid(err.message).body())
    return reply
      .code(500)
      .send(new PipedriveHttpError(500, 'Internal server error', { errorCode: 500 }).body())
  })
  app.setNotFoundHandler((_request, reply) =>
    reply
      .code(404)
      .send(new PipedriveHttpError(404, 'Not found', { errorCode: 404, error_info: INFO }).body()),
  )
}

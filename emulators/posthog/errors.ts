import type { FastifyInstance } from 'fastify'
import type { Fault, FaultResponse } from '../kit/index.js'
import { HogQLError } from './hogql/errors.js'

/**
 * PostHog's error body: its DRF exception handler is drf-exceptions-hog, which always answers these four keys
 * (https://github.com/PostHog/drf-exceptions-hog; PostHog/posthog@master:posthog/exceptions.py
 * `generate_exception_response` writes the same shape by hand).
 */
export interface DrfErrorBody {
  readonly type: string
  readonly code: string
  readonly detail: string
  readonly attr: string | null
}

export function drfError(
  type: string,
  code: string,
  detail: string,
  attr: string | null = null,
): DrfErrorBody {
  return { type, code, detail, attr }
}

/** Thrown by route handlers; the error handler answers with its status, body and headers. */
export class PosthogHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body === 'object' && body && 'detail' in body ? String(body.detail) : `HTTP ${status}`)
  }
}

export const notFound = () =>
  new PosthogHttpError(404, drfError('invalid_request', 'not_found', 'Not found.'))

export const validationError = (detail: string, code = 'invalid', attr: string | null = null) =>
  new PosthogHttpError(400, drfError('validation_error', code, detail, attr))

/** DRF's `Throttled` with a wait: "Request was throttled. Expected available in N seconds." (rest_framework/exceptions.py). */
export function throttledBody(seconds: number): DrfErrorBody {
  const unit = seconds === 1 ? 'second' : 'seconds'
  return drfError(
    'throttled_error',
    'throttled',
    `Request was throttled. Expected available in ${seconds} ${unit}.`,
  )
}

function headerValue(fault: Fault, name: string): string | undefined {
  for (const [k, v] of Object.entries(fault.headers ?? {})) if (k.toLowerCase() === name) return v
  return undefined
}

/**
 * What PostHog (or the load balancer in front of it) answers for an injected fault's status: DRF bodies from
 * the app (a 5xx is drf-exceptions-hog's `server_error`), HTML from the proxy for 502 to 504.
 */
export function posthogFaultResponse(status: number, fault: Fault): FaultResponse {
  if (status === 429) {
    const seconds = Math.max(1, Math.ceil(Number(headerValue(fault, 'retry-after') ?? '1')) || 1)
    return { body: throttledBody(seconds), headers: { 'retry-after': String(seconds) } }
  }
  if (status === 401) {
    return { body: drfError('authentication_error', 'authentication_failed', 'Invalid personal API key.') }
  }
  if (status === 403) {
    return {
      body: drfError(
        'authentication_error',
        'permission_denied',
        'You do not have permission to perform this action.',
      ),
    }
  }
  if (status === 404) return { body: drfError('invalid_request', 'not_found', 'Not found.') }
  if (status >= 502 && status <= 504) {
    const text = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' }[status]
    return {
      body: `<html><body><h1>${status} ${text}</h1></body></html>`,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    }
  }
  if (status >= 500) return { body: drfError('server_error', 'error', 'A server error occurred.') }
  return { body: drfError('invalid_request', 'invalid', `Request failed with status ${status}.`) }
}

interface FastifyLikeError {
  readonly statusCode?: number
  readonly code?: string
  readonly message: string
}

/** Every failure leaves in PostHog's shape: DRF bodies for the API, HogQL errors as validation errors. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyLikeError, request, reply) => {
    if (error instanceof PosthogHttpError) {
      return reply.code(error.status).headers(error.headers).send(error.body)
    }
    if (error instanceof HogQLError) {
      return reply.code(400).send(drfError('validation_error', error.wireCode, error.wireDetail))
    }
    if (error.statusCode === 413) {
      return reply.code(413).send(drfError('invalid_request', 'payload_too_large', 'Request body too large.'))
    }
    if (error.statusCode === 415) {
      const type = String(request.headers['content-type'] ?? '')
      return reply
        .code(415)
        .send(
          drfError(
            'invalid_request',
            'unsupported_media_type',
            `Unsupported media type "${type}" in request.`,
          ),
        )
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply
        .code(400)
        .send(drfError('validation_error', 'parse_error', `JSON parse error - ${error.message}`))
    }
    return reply.code(500).send(drfError('server_error', 'error', 'A server error occurred.'))
  })
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(drfError('invalid_request', 'not_found', 'Not found.')),
  )
}

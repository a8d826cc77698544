import type { FastifyInstance } from 'fastify'
import { GoogleApiError, googleError } from './errors.js'

interface FastifyLikeError {
  readonly statusCode?: number
  readonly message: string
}

/**
 * Every failure leaves in Google's JSON error shape (https://google.aip.dev/193), with the headers the
 * refusal carries. An unparsable body is 400 "Invalid JSON payload received. …" and an unknown path 404,
 * worded as Google's front end words them (observed, not documented).
 */
export function installGoogleErrorHandler(app: FastifyInstance, legacyErrors = false): void {
  app.setErrorHandler((error: FastifyLikeError, _request, reply) => {
    if (error instanceof GoogleApiError) {
      return reply.code(error.code).headers(error.headers).send(error.body)
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      const message = `Invalid JSON payload received. ${error.message}`
      return reply
        .code(400)
        .send(
          googleError(
            400,
            message,
            legacyErrors ? { errors: [{ message, domain: 'global', reason: 'parseError' }] } : {},
          ),
        )
    }
    return reply.code(500).send(googleError(500, 'Internal error encountered.'))
  })
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(googleError(404, `The requested URL ${request.url.split('?')[0]} was not found on this server.`)),
  )
}

import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'

export function errorBody(
  statusCode: number,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
) {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra }
}

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

/** Turns schema validation errors into a message that names the parameter and what is allowed. */
export function validationMessage(
  errors: readonly AjvError[],
  context: string,
  allowed?: readonly string[],
): string {
  const e = errors[0]
  if (!e) return `${context} is not valid`
  const where = `${context}${e.instancePath.replaceAll('/', '.')}`
  // A union of literals (a closed enum) fails one `const` per branch: name every allowed value at once.
  const literals = errors
    .filter((x) => x.keyword === 'const' && x.instancePath === e.instancePath)
    .map((x) => String(x.params.allowedValue))
  if (literals.length > 0) return `${where} must be one of ${literals.join(', ')}`
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(e.params.additionalProperty)
      const list = allowed?.length ? `; allowed: ${allowed.join(', ')}` : ''
      return context === 'querystring'
        ? `unknown query parameter '${name}'${list}`
        : `${where}: unknown field '${name}'${list}`
    }
    case 'required':
      return `${where}: '${String(e.params.missingProperty)}' is required`
    case 'enum':
      return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
    default:
      return `${where} ${e.message ?? 'is not valid'}`
  }
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    if (err instanceof ApiError) {
      if (err.cause !== undefined) request.log.warn({ err: err.cause }, err.message)
      void reply
        .code(err.statusCode)
        .headers(err.headers)
        .send(errorBody(err.statusCode, err.message, err.extra))
      return
    }
    const status = (err as FastifyError).statusCode
    if (status && status >= 400 && status < 500) {
      const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string }
      const message = fe.validation ? err.message : fe.message
      void reply.code(status).send(errorBody(status, message))
      return
    }
    request.log.error({ err }, 'unhandled error')
    void reply.code(500).send(errorBody(500, 'internal error; the server log has the details'))
  })
  const noRoute = (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(404)
      .send(
        errorBody(
          404,
          `no route for ${request.method} ${request.url.split('?')[0]}; see /docs for the API reference`,
        ),
      )
  // Answered before its body is read: nothing at an address without a route uses it, and the body would be
  // parsed (up to the body limit) for anyone, without a key.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) {
      void noRoute(request, reply)
      return
    }
    done()
  })
  app.setNotFoundHandler((request, reply) => {
    void noRoute(request, reply)
  })
}

import { STATUS_CODES } from 'node:http'
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, type NumericBounds, numericRange } from '../errors.js'

export function errorBody(
  statusCode: number,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
) {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra }
}

export interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
  /** The schema holding the failed keyword (Ajv's `verbose` option): where a range is read from. */
  parentSchema?: NumericBounds
}

/** How a request part is named when the error is about the part itself rather than one of its values. */
const PART_NAMES: Readonly<Record<string, string>> = { querystring: 'query', params: 'path' }

/** The keywords a numeric schema fails on: each answered with the whole range the schema allows. */
const NUMERIC_KEYWORDS = new Set(['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'])

/**
 * Turns schema validation errors into a message that names the parameter or field as the caller wrote it
 * (`limit`, `auth.api_key`; never Fastify's `querystring`, so a tool argument reads as itself) and what is
 * allowed, from the schema: `limit must be an integer from 1 to 1000`.
 */
export function validationMessage(
  errors: readonly AjvError[],
  context: string,
  allowed?: readonly string[],
): string {
  const e = errors[0]
  const part = PART_NAMES[context] ?? context
  if (!e) return `${part} is not valid`
  const where = e.instancePath.slice(1).replaceAll('/', '.') || part
  // A union of literals (a closed enum) fails one `const` per branch: name every allowed value at once.
  const literals = errors
    .filter((x) => x.keyword === 'const' && x.instancePath === e.instancePath)
    .map((x) => String(x.params.allowedValue))
  if (literals.length > 0) return `${where} must be one of ${literals.join(', ')}`
  const range = NUMERIC_KEYWORDS.has(e.keyword) && e.parentSchema ? numericRange(e.parentSchema) : undefined
  if (range !== undefined) return `${where} must be ${range}`
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
    case 'type':
      // Query values are text and lists are coerced, so text refused here was given more than once.
      return context === 'querystring' && e.params.type === 'string'
        ? `${where} must be given once`
        : `${where} ${e.message ?? 'is not valid'}`
    case 'enum':
      return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
    default:
      return `${where} ${e.message ?? 'is not valid'}`
  }
}

/** The whole of what a caller learns of an error that is not ours: the details go to the log only. */
const INTERNAL_ERROR_MESSAGE = 'internal error; the server log has the details'

/** How an error is answered: its status, headers and JSON body. */
export interface ErrorAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: ReturnType<typeof errorBody>
}

/**
 * The answer to an error thrown while serving a call, whichever way it reached the server (Fastify's error
 * handler, the passthrough door): ours as they say, Fastify's 4xx as they say, anything else a 500 whose
 * details go to the log only.
 */
export function errorAnswerOf(err: unknown, log: () => FastifyBaseLogger): ErrorAnswer {
  if (err instanceof ApiError) {
    if (err.cause !== undefined) log().warn({ err: err.cause }, err.message)
    return {
      status: err.statusCode,
      headers: err.headers,
      body: errorBody(err.statusCode, err.message, err.extra),
    }
  }
  const status = (err as FastifyError | undefined)?.statusCode
  if (status && status >= 400 && status < 500) {
    return { status, headers: {}, body: errorBody(status, (err as FastifyError).message) }
  }
  log().error({ err }, 'unhandled error')
  return { status: 500, headers: {}, body: errorBody(500, INTERNAL_ERROR_MESSAGE) }
}

/**
 * The router's own refusals, before any route is found (Fastify's `frameworkErrors` option): in the API's
 * error shape, and without the path, which Fastify's default answers repeat (a 414 echoed all of it). The
 * path can hold anything a caller put there, a token included.
 */
export function frameworkErrorAnswer(err: FastifyError, maxParamLength: number): ErrorAnswer {
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        status: 414,
        headers: {},
        body: errorBody(
          414,
          `a path segment (an id) is longer than ${maxParamLength} characters, the most this server reads`,
        ),
      }
    case 'FST_ERR_BAD_URL':
      return {
        status: 400,
        headers: {},
        body: errorBody(400, 'the path holds a %-escape that is not UTF-8 text (such as %E0 alone)'),
      }
    default:
      return { status: 500, headers: {}, body: errorBody(500, INTERNAL_ERROR_MESSAGE) }
  }
}

/** The body types a route may read, named in a 415 when it reads some of them (unsupportedType). */
const NAMED_BODY_TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded']

/**
 * Fastify's 415 says only "Unsupported Media Type": this names the type sent and the ones the route reads
 * (each scope has its own parsers: JSON on the API, JSON or text on tool calls, a form on the key page).
 */
function unsupportedType(request: FastifyRequest): ErrorAnswer {
  const read = NAMED_BODY_TYPES.filter((type) => request.server.hasContentTypeParser(type))
  // The caller's own header, named back no longer than a media type reasonably is.
  const sent =
    String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .slice(0, 100) || 'none'
  const message =
    read.length > 0
      ? `content-type ${sent} is not read here; send the body as ${read.join(' or ')}`
      : `content-type ${sent} is not read here`
  return { status: 415, headers: {}, body: errorBody(415, message) }
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const answer =
      (err as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? unsupportedType(request)
        : errorAnswerOf(err, () => request.log)
    void reply.code(answer.status).headers(answer.headers).send(answer.body)
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

import type { FastifyInstance } from 'fastify'
import { badRequest } from '../errors.js'

/**
 * How deep a request body may nest. Far beyond any unified object (a `metadata` value or a `raw` object is
 * a few levels), far below what the recursive steps a body meets later survive: a PostHog event of 100,000
 * nested `metadata` levels overflowed `JSON.stringify`'s stack on its way to the provider and was answered
 * 502, blaming PostHog for the caller's input.
 */
export const MAX_BODY_DEPTH = 64

/**
 * The top-level field under which `value` nests deeper than `max` levels (`body` when the body itself is
 * the array), or undefined. A walk with a stack of its own rather than recursion: a recursive one would
 * overflow on the very bodies it is there to refuse.
 */
export function fieldNestedTooDeep(value: unknown, max = MAX_BODY_DEPTH): string | undefined {
  const stack: { value: unknown; depth: number; field: string }[] = [{ value, depth: 0, field: 'body' }]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, depth, field } = next
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return field
    const entries = Array.isArray(v) ? v.entries() : Object.entries(v)
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') {
        stack.push({
          value: child,
          depth: depth + 1,
          field: depth === 0 && !Array.isArray(v) ? String(key) : field,
        })
      }
    }
  }
  return undefined
}

/** The 400 for a body nesting deeper than MAX_BODY_DEPTH, naming the field; undefined for any other body. */
export function bodyDepthProblem(value: unknown): Error | undefined {
  const field = fieldNestedTooDeep(value)
  return field === undefined
    ? undefined
    : badRequest(
        `${field}: nested more than ${MAX_BODY_DEPTH} levels deep; request bodies may nest up to ${MAX_BODY_DEPTH}`,
      )
}

/** Half of a UTF-16 surrogate pair without its other half: text no encoding can carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
/** A JSON escape of a surrogate: the only way one reaches a parsed body (decoded bytes never make one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

/**
 * The top-level field (`body` for the body itself) holding a string or key with a lone surrogate, or
 * undefined. JSON lets `"\ud800"` through, but no URL, header or provider body can carry it:
 * `encodeURIComponent` throws on it, and a PostHog property id holding one was answered 502 as if PostHog
 * had failed. Only bodies whose text escapes a surrogate are walked.
 */
export function fieldWithLoneSurrogate(text: string, value: unknown): string | undefined {
  if (!SURROGATE_ESCAPE.test(text)) return undefined
  const stack: { value: unknown; field: string }[] = [{ value, field: 'body' }]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, field } = next
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return field
      continue
    }
    if (v === null || typeof v !== 'object') continue
    const top = field === 'body' && !Array.isArray(v)
    const entries = Array.isArray(v) ? v.entries() : Object.entries(v)
    for (const [key, child] of entries) {
      const name = top ? String(key) : field
      if (typeof key === 'string' && LONE_SURROGATE.test(key)) return name
      stack.push({ value: child, field: name })
    }
  }
  return undefined
}

/** The 400 for a body with a lone surrogate, naming the field; undefined for any other body. */
export function bodyTextProblem(text: string, value: unknown): Error | undefined {
  const field = fieldWithLoneSurrogate(text, value)
  return field === undefined
    ? undefined
    : badRequest(
        `${field}: holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair), which is not text any provider can be sent`,
      )
}

/**
 * JSON bodies as Fastify parses them (a `__proto__` or `constructor.prototype` key refused, as configured,
 * by default both), then refused with a 400 past MAX_BODY_DEPTH. `emptyIsNone` takes an empty body as no
 * body (the tool server's calls without arguments) instead of refusing it. Scopes that keep a body's bytes
 * (passthrough, native webhooks) replace it.
 */
export function parseJsonBodiesWithDepthLimit(
  app: FastifyInstance,
  options: { emptyIsNone?: boolean } = {},
): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body)
    if (options.emptyIsNone && text.trim() === '') return done(null, undefined)
    parse(request, text, (err, value) => {
      if (err) return done(err, undefined)
      const problem = bodyDepthProblem(value) ?? bodyTextProblem(text, value)
      return problem ? done(problem, undefined) : done(null, value)
    })
  })
}

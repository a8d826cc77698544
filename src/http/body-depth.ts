import type { FastifyInstance } from 'fastify'
import { badRequest } from '../errors.js'

/**
 * How deep a request body may nest. Far beyond any unified object (a `metadata` value or a `raw` object is
 * a few levels), far below what the recursive steps a body meets later survive: a PostHog event of 100,000
 * nested `metadata` levels overflowed `JSON.stringify`'s stack on its way to the provider and was answered
 * 502, blaming PostHog for the caller's input.
 */
export const MAX_BODY_DEPTH = 64

/** Half of a UTF-16 surrogate pair without its other half: text no encoding can carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
/** A JSON escape of a surrogate: the only way one reaches a parsed body (decoded bytes never make one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

type ProblemKind = 'too deep' | 'lone surrogate' | 'proto key' | 'constructor prototype'

/** What a walk looks for beyond depth: lone surrogates in strings and keys, keys that set a prototype. */
interface Checks {
  readonly surrogates?: boolean
  readonly prototypeKeys?: boolean
}

/**
 * The first problem in `value` and the top-level field holding it (`body` for the body itself, or for a
 * key of its own): nesting deeper than `max`, and what `checks` asks for. One walk for every check, with a
 * stack of its own rather than recursion: a recursive one would overflow on the very bodies it is there to
 * refuse. Written by hand because no parser option does it: JSON.parse has no depth bound, and Fastify's
 * parser refuses a prototype key as "not valid JSON" without naming it.
 */
function firstProblem(value: unknown, checks: Checks, max: number) {
  const stack: { value: unknown; depth: number; field: string }[] = [{ value, depth: 0, field: 'body' }]
  const found = (field: string, kind: ProblemKind) => ({ field, kind })
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, depth, field } = next
    if (typeof v === 'string') {
      if (checks.surrogates && LONE_SURROGATE.test(v)) return found(field, 'lone surrogate')
      continue
    }
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return found(field, 'too deep')
    const isArray = Array.isArray(v)
    if (checks.prototypeKeys && !isArray) {
      if (Object.hasOwn(v, '__proto__')) return found(field, 'proto key')
      const c: unknown = Object.hasOwn(v, 'constructor') ? (v as { constructor: unknown }).constructor : null
      if (c !== null && typeof c === 'object' && Object.hasOwn(c, 'prototype'))
        return found(field, 'constructor prototype')
    }
    const top = depth === 0 && !isArray
    for (const [key, child] of isArray ? v.entries() : Object.entries(v)) {
      const name = top ? String(key) : field
      if (checks.surrogates && typeof key === 'string' && LONE_SURROGATE.test(key))
        return found(name, 'lone surrogate')
      if ((child !== null && typeof child === 'object') || (checks.surrogates && typeof child === 'string'))
        stack.push({ value: child, depth: depth + 1, field: name })
    }
  }
  return undefined
}

/** The top-level field under which `value` nests deeper than `max` levels (`body`: the body itself), or undefined. */
export function fieldNestedTooDeep(value: unknown, max = MAX_BODY_DEPTH): string | undefined {
  return firstProblem(value, {}, max)?.field
}

const PROBLEM_MESSAGES: Record<ProblemKind, string> = {
  'too deep': `nested more than ${MAX_BODY_DEPTH} levels deep; request bodies may nest up to ${MAX_BODY_DEPTH}`,
  'lone surrogate':
    'holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair), which is not text any provider can be sent',
  'proto key':
    "holds a key named __proto__, which request bodies may not have: it would set an object's prototype",
  'constructor prototype':
    "holds a constructor object with a prototype key, which request bodies may not have: it would reach an object's prototype",
}

/**
 * The 400 for a parsed body nesting deeper than MAX_BODY_DEPTH, or holding a lone surrogate (JSON lets
 * `"\ud800"` through, but no URL, header or provider body can carry it: `encodeURIComponent` throws on it, and
 * a PostHog property id holding one was answered 502 as if PostHog had failed), naming the field; undefined
 * for any other body. Strings are only looked at when the text escapes a surrogate.
 */
export function bodyProblem(text: string, value: unknown, checks: Checks = {}): Error | undefined {
  const problem = firstProblem(value, { ...checks, surrogates: SURROGATE_ESCAPE.test(text) }, MAX_BODY_DEPTH)
  return problem && badRequest(`${problem.field}: ${PROBLEM_MESSAGES[problem.kind]}`)
}

/**
 * What bodyProblem finds in JSON given as text inside a body (a tool's object argument, which Gemini's tool
 * schemas can only send as a string), prototype keys included, in words without a field name; undefined
 * when it has none. Parsed from a string, such an argument had none of a body's checks.
 */
export function jsonTextProblem(text: string, value: unknown): string | undefined {
  const checks = { prototypeKeys: true, surrogates: SURROGATE_ESCAPE.test(text) }
  const problem = firstProblem(value, checks, MAX_BODY_DEPTH)
  return problem && PROBLEM_MESSAGES[problem.kind]
}

/**
 * Fastify's parser refuses a `__proto__` or `constructor.prototype` key as "not valid JSON": when the text
 * is JSON after all, the 400 names the key and the field holding it instead. Only a refused body is parsed
 * again (JSON.parse keeps `__proto__` as a plain key), so an accepted one costs nothing more.
 */
function prototypeKeyProblem(text: string): Error | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return bodyProblem(text, value, { prototypeKeys: true })
}

/**
 * JSON bodies as Fastify parses them (a `__proto__` or `constructor.prototype` key refused, as configured,
 * by default both, with a 400 naming it), then refused with a 400 past MAX_BODY_DEPTH or holding a lone
 * surrogate. `emptyIsNone` takes an empty body as no body (the tool server's calls without arguments)
 * instead of refusing it. Scopes that keep a body's bytes (passthrough, native webhooks) replace it.
 */
export function parseJsonBodiesWithDepthLimit(
  app: FastifyInstance,
  options: { emptyIsNone?: boolean } = {},
): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, checkedJsonParser(app, options))
}

/**
 * `text/plain` bodies read as JSON, checked as parseJsonBodiesWithDepthLimit checks JSON bodies: `fetch` sends
 * a string body as `text/plain;charset=UTF-8` unless told otherwise, which is how Unified's own example client
 * posts a tool call's arguments (unified-to/unified-mcp-typescript, main.ts, runCohere). Text that is not
 * JSON is a 400 saying how the body was read.
 */
export function parsePlainTextBodiesAsJson(
  app: FastifyInstance,
  options: { emptyIsNone?: boolean } = {},
): void {
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string' },
    checkedJsonParser(app, {
      ...options,
      notJson: 'the body is not valid JSON: a text/plain body is read as JSON here',
    }),
  )
}

function checkedJsonParser(
  app: FastifyInstance,
  options: { emptyIsNone?: boolean; notJson?: string },
): Parameters<FastifyInstance['addContentTypeParser']>[2] {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error')
  return (request, body, done) => {
    const text = String(body)
    if (options.emptyIsNone && text.trim() === '') return done(null, undefined)
    parse(request, text, (err, value) => {
      if (err) {
        const named = prototypeKeyProblem(text) ?? (options.notJson ? badRequest(options.notJson) : err)
        return done(named, undefined)
      }
      const problem = bodyProblem(text, value)
      return problem ? done(problem, undefined) : done(null, value)
    })
  }
}

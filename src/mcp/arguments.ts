import { maxHeaderSize } from 'node:http'
import { badRequest } from '../errors.js'
import { jsonTextProblem } from '../http/body-depth.js'
import type { ObjectSchema } from './json-schema.js'
import type { ToolArguments } from './tool.js'

/**
 * Checks the argument names against the tool's schema, like the API refuses an unknown query parameter:
 * an agent that misspells a filter must hear about it, not get unfiltered data.
 */
export function checkArguments(toolName: string, schema: ObjectSchema, args: ToolArguments): void {
  const allowed = Object.keys(schema.properties)
  for (const name of Object.keys(args)) {
    if (!allowed.includes(name)) {
      throw badRequest(`${toolName}: unknown argument '${name}'; allowed: ${allowed.join(', ') || 'none'}`)
    }
  }
  for (const name of schema.required ?? []) {
    const value = args[name]
    if (value === undefined || value === null || value === '')
      throw badRequest(`${toolName}: '${name}' is required`)
  }
}

/**
 * Some vendors' schemas cannot describe free-form objects (Gemini), so those tools receive them as JSON
 * text; an object argument given as a string is parsed back, and checked as a body is (depth, prototype
 * keys, lone surrogates), with a 400 naming the argument: it went to the provider unchecked, 100,000
 * levels deep or with a `__proto__` key.
 */
export function objectArgument(name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw badRequest(`${name} must be a JSON object`)
  }
  const problem = jsonTextProblem(value, parsed)
  if (problem) throw badRequest(`${name}: ${problem}`)
  return parsed
}

/**
 * Query values as the API receives them: text, lists kept as lists. An object has no query form: refused
 * with a 400 naming the argument (it was sent on as `[object Object]`, a `raw` one as a provider parameter
 * of that name).
 */
export function queryValue(toolName: string, name: string, value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined
  const text = (v: unknown) => {
    if (v !== null && typeof v === 'object')
      throw badRequest(`${toolName}: ${name} must be text, a number or a list of them, not an object`)
    return String(v)
  }
  return Array.isArray(value) ? value.map(text) : text(value)
}

/**
 * The longest URL (path and query string) a tool call may make from its arguments: what a REST request may
 * carry, which Node's HTTP server reads with the headers within `maxHeaderSize` (16 KiB unless the process is
 * started with --max-http-header-size). A tool's arguments come in a JSON body, bounded only by the body
 * limit, so without this a call sent 60,000 `fields` (a 769 KB list) where REST takes some 2,700, and held
 * the event loop 11 s.
 */
export const MAX_TOOL_URL_LENGTH = maxHeaderSize

/** `name=value` as URLSearchParams writes it (and joins with `&`). */
export const queryPair = (name: string, value: string): string =>
  new URLSearchParams([[name, value]]).toString()

/**
 * The URL a tool call's arguments make, as the REST request doing the same would carry it: each argument's
 * part is counted as it is added, and the first one that takes the URL past MAX_TOOL_URL_LENGTH is a 400
 * naming it and the bound, before any more of it is read and before the call does anything.
 */
export class ToolUrl {
  private readonly pairs: string[] = []
  private length: number

  constructor(
    private readonly toolName: string,
    private path: string,
  ) {
    this.length = path.length
  }

  /** Puts `value` in place of `{name}` in the path. */
  fill(name: string, value: string): void {
    const encoded = encodeURIComponent(value)
    this.count(name, encoded.length - name.length - 2)
    this.path = this.path.replace(`{${name}}`, encoded)
  }

  /** Adds `name=value` to the query string, once for each value of a list (REST's repeated form). */
  add(name: string, value: unknown): void {
    for (const item of Array.isArray(value) ? value : [value]) {
      const pair = queryPair(name, String(item))
      this.count(name, pair.length + 1)
      this.pairs.push(pair)
    }
  }

  /** The path and query string. */
  toString(): string {
    return this.pairs.length > 0 ? `${this.path}?${this.pairs.join('&')}` : this.path
  }

  private count(name: string, chars: number): void {
    this.length += chars
    if (this.length > MAX_TOOL_URL_LENGTH) {
      throw badRequest(
        `${this.toolName}: ${name} is too long: with it the call's URL would pass ${MAX_TOOL_URL_LENGTH} ` +
          'characters, the most a REST request may carry (path and query string); give fewer or shorter values',
      )
    }
  }
}

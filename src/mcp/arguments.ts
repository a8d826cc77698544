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

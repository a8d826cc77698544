import { badRequest } from '../errors.js'
import { fieldNestedTooDeep, MAX_BODY_DEPTH } from '../http/body-depth.js'

/**
 * A raw parameter that is a comma-joined list of names the connector also asks for (BambooHR `fields`, Gusto
 * `include`...): the raw parameter is "added to the provider request" (spec 4.1), so its names join the
 * connector's instead of replacing them, which left every unified field those feed empty without a word.
 */
export function rawListParam(
  raw: Readonly<Record<string, string>>,
  name: string,
): { names: string[]; rest: Record<string, string> } {
  const { [name]: list, ...rest } = raw
  const names = (list ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  return { names, rest }
}

/** `own` followed by the names of `extra` it lacks, each once. */
export const joinNames = (own: readonly string[], extra: readonly string[]): string[] => [
  ...new Set([...own, ...extra]),
]

/**
 * The caller's raw parameters with the connector's own over them, leaving out the own ones that are
 * undefined (a unified filter the caller did not give): spreading those erased a raw parameter of the same
 * name, so the provider answered as if it had never been sent.
 */
export function rawThenOwn<V>(
  raw: Readonly<Record<string, string>>,
  own: Readonly<Record<string, V | undefined>>,
): Record<string, string | V> {
  const out: Record<string, string | V> = { ...raw }
  for (const [k, v] of Object.entries(own)) if (v !== undefined) out[k] = v
  return out
}

/**
 * A raw parameter whose value is JSON (Plausible's `filters` and `include`, GA4's `dimensionFilter`...), parsed;
 * undefined when `text` is not JSON, for the caller to say what the provider takes. A value nesting deeper than
 * a request body may (MAX_BODY_DEPTH) is a 400 naming `raw.<name>`: it comes in the query string, past the body
 * parser's bound, and would otherwise reach the provider and the recursive steps on the way there.
 */
export function rawJson(name: string, text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (fieldNestedTooDeep(value) !== undefined) {
    throw badRequest(
      `raw.${name}: nested more than ${MAX_BODY_DEPTH} levels deep; a raw JSON value may nest up to ${MAX_BODY_DEPTH}`,
    )
  }
  return value
}

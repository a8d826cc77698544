import { badRequest } from '../errors.js'

/**
 * The `raw` query parameter is one URL-encoded string of `name=value` pairs (sdk-contract R4), added to
 * the provider request. Fastify has already decoded the outer layer, so this parses the inner one.
 */
export function parseRawParams(value: unknown): Record<string, string> {
  if (value === undefined || value === '') return {}
  if (typeof value !== 'string')
    throw badRequest('raw: give it once, as a URL-encoded string such as a%3D1%26b%3D2')
  const out: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(value)) {
    if (k === '') throw badRequest(`raw: '${value}' has a parameter without a name`)
    out[k] = v
  }
  return out
}

/**
 * `raw` once the names Unigate sets itself are refused: a 400 naming the first such parameter and what to
 * use instead (`owned` maps each name to that), before any provider call.
 */
export function refuseOwnedRaw(
  raw: Readonly<Record<string, string>>,
  provider: string,
  ...owned: ReadonlyArray<Readonly<Record<string, string>> | undefined>
): Readonly<Record<string, string>> {
  for (const name of Object.keys(raw)) {
    for (const names of owned) {
      const why = names && Object.hasOwn(names, name) ? names[name] : undefined
      if (why !== undefined) throw badRequest(`raw: '${name}' is set by Unigate for ${provider}; ${why}`)
    }
  }
  return raw
}

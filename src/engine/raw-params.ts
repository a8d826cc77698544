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

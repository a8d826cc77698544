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
 * use instead (`owned` maps each name to that), before any provider call. `fieldOf` is what the provider
 * reads a name as, where it reads several names as one field (IntegrationDefinition.rawParamField): a name
 * read as an owned one is refused too, saying which.
 */
export function refuseOwnedRaw(
  raw: Readonly<Record<string, string>>,
  provider: string,
  owned: ReadonlyArray<Readonly<Record<string, string>> | undefined>,
  fieldOf: (name: string) => string = (name) => name,
): Readonly<Record<string, string>> {
  const names = Object.keys(raw)
  if (names.length === 0) return raw
  const byField = new Map<string, { readonly name: string; readonly why: string }>()
  for (const list of owned) {
    for (const [name, why] of Object.entries(list ?? {})) {
      if (!byField.has(fieldOf(name))) byField.set(fieldOf(name), { name, why })
    }
  }
  for (const name of names) {
    const taken = byField.get(fieldOf(name))
    if (taken === undefined) continue
    const readAs = taken.name === name ? '' : ` (${provider} reads it as '${taken.name}')`
    throw badRequest(`raw: '${name}' is set by Unigate for ${provider}${readAs}; ${taken.why}`)
  }
  return raw
}

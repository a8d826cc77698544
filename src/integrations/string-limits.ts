import { badRequest } from '../errors.js'

/**
 * Some providers cut long strings short rather than refusing them (Mixpanel at 255 characters or bytes,
 * Amplitude at 1024 characters: see their limits where they are used). A write would then answer what was
 * sent while the provider keeps less, so such a string is refused before sending, with a 400 naming it.
 */
export interface StringLimit {
  /** The provider's name, as the 400 says it. */
  readonly provider: string
  readonly max: number
  readonly measure: 'characters' | 'bytes'
}

const sizeOf = (s: string, measure: StringLimit['measure']) =>
  measure === 'bytes' ? Buffer.byteLength(s) : [...s].length

/** Every string a write body sends, with the unified field it comes from: fields, metadata and raw. */
function* stringsOf(body: Readonly<Record<string, unknown>>): Generator<[string, string]> {
  const values = function* (field: string, v: unknown): Generator<[string, string]> {
    const inner =
      v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? (v as { value: unknown }).value : v
    for (const item of Array.isArray(inner) ? inner : [inner])
      if (typeof item === 'string') yield [field, item]
  }
  for (const [k, v] of Object.entries(body)) {
    if (k === 'metadata' || k === 'raw') {
      if (!v || typeof v !== 'object') continue
      for (const [name, value] of Object.entries(v as Record<string, unknown>)) {
        yield [`${k}.${name}`, name]
        yield* values(`${k}.${name}`, value)
      }
    } else if (typeof v === 'string') yield [k, v]
  }
}

/** A 400 naming the first field whose string the provider would cut short, if any. */
export function refuseCutStrings(body: Readonly<Record<string, unknown>>, limit: StringLimit): void {
  for (const [field, s] of stringsOf(body)) {
    const size = sizeOf(s, limit.measure)
    if (size > limit.max) {
      throw badRequest(
        `${field}: ${limit.provider} keeps at most ${limit.max} ${limit.measure} of a string and would cut this one (${size} ${limit.measure}) short`,
      )
    }
  }
}

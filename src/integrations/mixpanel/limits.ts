import { badRequest } from '../../errors.js'

/**
 * Mixpanel cuts long strings short rather than refusing them: event property names and values to 255
 * characters ("We truncate all strings down to 255 characters": mixpanel/docs@ba22906:reference/
 * import-events.mdx), profile values to 255 bytes ("String properties have a limit of 255 bytes":
 * …:docs/data-structure/property-reference/data-type.mdx, to which user-profiles.mdx refers). A write
 * would then answer what was sent while Mixpanel keeps less, so such a string is refused before sending.
 */
export const MIXPANEL_STRING_LIMIT = 255

export type StringMeasure = 'characters' | 'bytes'

const sizeOf = (s: string, measure: StringMeasure) =>
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

/** A 400 naming the first field whose string Mixpanel would cut short, if any. */
export function refuseCutStrings(body: Readonly<Record<string, unknown>>, measure: StringMeasure): void {
  for (const [field, s] of stringsOf(body)) {
    const size = sizeOf(s, measure)
    if (size > MIXPANEL_STRING_LIMIT) {
      throw badRequest(
        `${field}: Mixpanel keeps at most ${MIXPANEL_STRING_LIMIT} ${measure} of a string and would cut this one (${size} ${measure}) short`,
      )
    }
  }
}

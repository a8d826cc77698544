/**
 * How Mixpanel cuts long strings short instead of refusing them. Events: "We truncate all strings down to
 * 255 characters" (mixpanel/docs@ba22906:reference/import-events.mdx); property names/values "at most 255
 * characters in length (longer names are truncated)" (…:docs/data-structure/events-and-properties.mdx).
 * Profiles: "String properties have a limit of 255 bytes" (…:docs/data-structure/property-reference/
 * data-type.mdx, which user-profiles.mdx refers to for profile values).
 */
export const STRING_LIMIT = 255

const toChars = (s: string) => [...s].slice(0, STRING_LIMIT).join('')

function toBytes(s: string): string {
  let out = ''
  let bytes = 0
  for (const ch of s) {
    bytes += Buffer.byteLength(ch)
    if (bytes > STRING_LIMIT) break
    out += ch
  }
  return out
}

function cut(value: unknown, one: (s: string) => string): unknown {
  if (typeof value === 'string') return one(value)
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? one(v) : v))
  return value
}

/** An event's properties as Mixpanel stores them: names and string values of at most 255 characters. */
export function truncatedEventProperties<T extends Record<string, unknown>>(props: T): T {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [toChars(k), cut(v, toChars)])) as T
}

/** A profile `$set` as Mixpanel stores it: string values (and list items) of at most 255 bytes. */
export function truncatedProfileValues(set: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(set).map(([k, v]) => [k, cut(v, toBytes)]))
}

/**
 * The URL of one relation in an RFC 5988 `Link` header (`<https://…?page=2>; rel="next", <…>; rel="last"`),
 * or undefined when the header is absent or has no such relation.
 */
export function linkOf(header: string | string[] | undefined, rel: string): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header
  if (!text) return undefined
  for (const part of text.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/s.exec(part)
    if (!match) continue
    const rels = /\brel\s*=\s*"?([^";]*)"?/i.exec(match[2] as string)?.[1]?.split(/\s+/) ?? []
    if (rels.includes(rel)) return match[1]
  }
  return undefined
}

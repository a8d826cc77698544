/**
 * Normalizes an allowed redirect origin as a workspace stores it: `scheme://host[:port]`, lower case,
 * default ports dropped. Anything with a path, query, credentials or a non-http(s) scheme is refused,
 * so an entry can never widen into "any page under a prefix".
 */
export function normalizeOrigin(input: string): string {
  let url: URL
  try {
    url = new URL(input.trim())
  } catch {
    throw new Error(`'${input}' is not an origin; write it as https://app.example.com`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`'${input}': only http and https origins can be redirect targets`)
  if (url.username || url.password) throw new Error(`'${input}': an origin carries no credentials`)
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    throw new Error(`'${input}' has a path, query or fragment; give the origin only (${url.origin})`)
  return url.origin
}

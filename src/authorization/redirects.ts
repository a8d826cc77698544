/** Why a redirect target was refused, in words an integrator can act on. */
export class RedirectRefused extends Error {}

/**
 * Accepts a success or failure redirect only when its origin is one the workspace allowed, so the flow
 * cannot be used as an open redirect (a phishing link through a trusted host). Answers the parsed URL.
 */
export function checkRedirectTarget(name: string, target: string, allowedOrigins: readonly string[]): URL {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new RedirectRefused(`${name} must be an absolute URL, got '${target}'`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RedirectRefused(`${name} must be an http(s) URL`)
  if (url.username || url.password) throw new RedirectRefused(`${name} may not carry credentials`)
  if (!allowedOrigins.includes(url.origin)) {
    // The answer goes to whoever holds the link (no key): it names the refused origin, not the allowed ones.
    throw new RedirectRefused(
      `${name}: origin ${url.origin} is not an allowed redirect origin of this workspace; its owner adds it with PATCH /unified/workspace {"allowed_redirect_origins": [...]} or unigate workspace set --allowed-redirect-origins`,
    )
  }
  return url
}

/** The target with parameters appended (existing query parameters are kept; ours replace same-named ones). */
export function withParams(target: string, params: Readonly<Record<string, string>>): string {
  const url = new URL(target)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

/**
 * Whether a subscription's target, as a provider lists it, is `url`: compared as parsed URLs, so a provider
 * that stores the address normalised (a lower-cased host, a default port dropped, as `new URL()` writes it)
 * still matches; anything that is not a URL matches nothing.
 */
export function sameTarget(listed: unknown, url: string): boolean {
  if (typeof listed !== 'string') return false
  if (listed === url) return true
  try {
    return new URL(listed).href === new URL(url).href
  } catch {
    return false
  }
}

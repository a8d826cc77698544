import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { Credentials } from '../types.js'

export const CLOUD_API_URL = 'https://api.umami.is/v1'
/** Umami Cloud's collector (the REST host does not take `/api/send`). */
export const CLOUD_COLLECT_URL = 'https://cloud.umami.is/api/send'

export type Hosting = 'cloud' | 'self_hosted'

/** A connection with its own `api_url` is self-hosted unless it says otherwise (an emulator of Cloud). */
export function hostingOf(c: Credentials): Hosting {
  if (c.hosting === 'cloud' || c.hosting === 'self_hosted') return c.hosting
  return c.api_url ? 'self_hosted' : 'cloud'
}

export function apiUrlOf(c: Credentials): string {
  return withoutTrailingSlashes(c.api_url ?? CLOUD_API_URL)
}

/**
 * Where events are sent: self-hosted `<host>/api/send` (the REST base already ends in `/api`); Cloud's
 * collector, or `/api/send` on the origin of an overridden Cloud base address.
 */
export function collectUrlOf(c: Credentials): string {
  if (c.collect_url) return c.collect_url
  const api = apiUrlOf(c)
  if (hostingOf(c) === 'self_hosted') return `${api}/send`
  return c.api_url ? new URL('/api/send', api).toString() : CLOUD_COLLECT_URL
}

/** Cloud API keys go in `x-umami-api-key`; self-hosted servers take only a Bearer login token. */
export function umamiAuthHeaders(c: Credentials): Record<string, string> {
  const key = c.api_key ?? ''
  return hostingOf(c) === 'cloud' ? { 'x-umami-api-key': key } : { authorization: `Bearer ${key}` }
}

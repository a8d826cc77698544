import { badRequest } from '../../errors.js'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { Credentials } from '../types.js'

const HOSTS = {
  us: { api: 'https://us.posthog.com', ingestion: 'https://us.i.posthog.com' },
  eu: { api: 'https://eu.posthog.com', ingestion: 'https://eu.i.posthog.com' },
} as const

/** A self-hosted instance (or an emulator) serves the API and ingestion on one origin. */
function selfHosted(credentials: Credentials): string | undefined {
  const url = credentials.api_url?.trim()
  if (!url) return undefined
  if (!/^https?:\/\/[^/\s]+/.test(url)) throw badRequest(`api_url: '${url}' is not an http(s) URL`)
  return withoutTrailingSlashes(url)
}

function region(credentials: Credentials): keyof typeof HOSTS {
  return credentials.region?.trim().toLowerCase() === 'eu' ? 'eu' : 'us'
}

/** The private API (`/api/...`, personal API key). */
export function apiBaseUrl(credentials: Credentials): string {
  return selfHosted(credentials) ?? HOSTS[region(credentials)].api
}

/** The public ingestion host (capture, project API key in the body). */
export function ingestionBaseUrl(credentials: Credentials): string {
  return selfHosted(credentials) ?? HOSTS[region(credentials)].ingestion
}

/** An OAuth access token when the connection holds one (it was authorized with OAuth), else the personal key. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  const token = credentials.access_token?.trim() || credentials.token?.trim()
  return token ? { authorization: `Bearer ${token}` } : {}
}

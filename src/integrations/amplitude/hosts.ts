import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { Credentials } from '../types.js'

export const AMPLITUDE_REGIONS = ['us', 'eu'] as const

export interface AmplitudeHosts {
  /** Export, Dashboard REST, User Activity/Search, User Privacy (`/api/2/…`). */
  readonly analytics: string
  /** HTTP V2 and Identify ingestion (`/2/httpapi`, `/identify`). */
  readonly ingest: string
}

/** providers.md 4.1; `api_url` replaces both hosts with one address (a proxy or an emulator). */
export function amplitudeHosts(credentials: Credentials): AmplitudeHosts {
  if (credentials.api_url) {
    const base = withoutTrailingSlashes(credentials.api_url)
    return { analytics: base, ingest: base }
  }
  return credentials.region === 'eu'
    ? { analytics: 'https://analytics.eu.amplitude.com', ingest: 'https://api.eu.amplitude.com' }
    : { analytics: 'https://amplitude.com', ingest: 'https://api2.amplitude.com' }
}

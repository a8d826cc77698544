import { withoutTrailingSlashes } from '../trailing-slashes.js'
import type { Credentials } from '../types.js'

export const MIXPANEL_REGIONS = ['us', 'eu', 'in'] as const
export type MixpanelRegion = (typeof MIXPANEL_REGIONS)[number]

export interface MixpanelHosts {
  /** Query API and App API host (`/api/query/…`, `/api/app/…`). */
  readonly query: string
  /** Ingestion host (`/import`, `/engage`). */
  readonly ingest: string
  /** Raw Event Export host (`/api/2.0/export`). */
  readonly export: string
}

const HOSTS: Readonly<Record<MixpanelRegion, MixpanelHosts>> = {
  us: {
    query: 'https://mixpanel.com',
    ingest: 'https://api.mixpanel.com',
    export: 'https://data.mixpanel.com',
  },
  eu: {
    query: 'https://eu.mixpanel.com',
    ingest: 'https://api-eu.mixpanel.com',
    export: 'https://data-eu.mixpanel.com',
  },
  in: {
    query: 'https://in.mixpanel.com',
    ingest: 'https://api-in.mixpanel.com',
    export: 'https://data-in.mixpanel.com',
  },
}

/**
 * Mixpanel splits its API over three hosts per residency region (providers.md 3.1). `api_url` replaces all
 * three with one address (a proxy, or an emulator serving every path).
 */
export function mixpanelHosts(credentials: Credentials): MixpanelHosts {
  if (credentials.api_url) {
    const base = withoutTrailingSlashes(credentials.api_url)
    return { query: base, ingest: base, export: base }
  }
  return HOSTS[(credentials.region as MixpanelRegion | undefined) ?? 'us'] ?? HOSTS.us
}

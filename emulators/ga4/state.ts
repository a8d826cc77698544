import type { BearerCheck } from '../google/bearer.js'
import type { GoogleTokenAuthority } from '../google/token-authority.js'
import { AdminStore } from './admin-store.js'
import type { Ga4Seed } from './data/seed.js'
import type { CollectedEvent } from './measurement.js'
import { PropertyQuotas } from './report/quota.js'

const SCOPE = 'https://www.googleapis.com/auth/'
/**
 * Scopes each API accepts. The Admin API declares analytics.edit and analytics.readonly only, so the full
 * `analytics` scope reads nothing there (googleapis/googleapis@99b25248:google/analytics/admin/v1beta/
 * analytics_admin.proto, `oauth_scopes`); the Data API declares analytics and analytics.readonly
 * (googleapis/googleapis@3597f7db:google/analytics/data/v1beta/analytics_data_api.proto).
 */
export const ADMIN_READ_SCOPES = [`${SCOPE}analytics.readonly`, `${SCOPE}analytics.edit`]
export const ADMIN_WRITE_SCOPES = [`${SCOPE}analytics.edit`]
export const DATA_SCOPES = [`${SCOPE}analytics.readonly`, `${SCOPE}analytics`]

export interface Ga4StateOptions {
  readonly seed: number
  readonly factsPerDay: number
}

/** Everything a GA4 emulator holds. */
export class Ga4State {
  readonly admin: AdminStore
  readonly quotas = new PropertyQuotas()
  readonly collected: CollectedEvent[] = []

  constructor(
    readonly seed: Ga4Seed,
    readonly authority: GoogleTokenAuthority,
    readonly options: Ga4StateOptions,
  ) {
    this.admin = new AdminStore(seed, () => this.now())
  }

  /** The emulator runs on its token authority's clock, so advancing it ages tokens and data alike. */
  now(): number {
    return this.authority.now()
  }

  bearer(service: string): BearerCheck {
    return { authority: this.authority, service }
  }
}

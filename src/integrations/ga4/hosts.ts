import { apiUrlOverride } from '../google/oauth.js'
import type { Credentials } from '../types.js'

/** The three GA4 hosts (providers.md 1.1); Admin and Data are global, the Measurement Protocol has an EU host. */
export const GA4_ADMIN_URL = 'https://analyticsadmin.googleapis.com'
export const GA4_DATA_URL = 'https://analyticsdata.googleapis.com'
export const GA4_MP_URLS = {
  global: 'https://www.google-analytics.com',
  eu: 'https://region1.google-analytics.com',
} as const
export const GA4_REGIONS = Object.keys(GA4_MP_URLS) as (keyof typeof GA4_MP_URLS)[]

/** An `api_url` (an emulator, a proxy) serves all three APIs, whose paths do not collide. */
export function ga4AdminBase(credentials: Credentials): string {
  return apiUrlOverride(credentials) ?? GA4_ADMIN_URL
}

export function ga4DataBase(credentials: Credentials): string {
  return apiUrlOverride(credentials) ?? GA4_DATA_URL
}

export function ga4MeasurementBase(credentials: Credentials): string {
  const region = credentials.region === 'eu' ? 'eu' : 'global'
  return apiUrlOverride(credentials) ?? GA4_MP_URLS[region]
}

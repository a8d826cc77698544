/** Plausible API shapes (providers.md section 5.3; plausible/docs sites-api.md, stats-api.md). */

export type PlausibleSite = {
  domain: string
  timezone: string
  custom_properties?: string[]
  tracker_script_configuration?: Record<string, unknown>
  [key: string]: unknown
}

export type PlausibleSitesPage = {
  sites: PlausibleSite[]
  meta: { after: string | null; before: string | null; limit: number }
}

export type PlausibleQueryBody = {
  site_id: string
  metrics: string[]
  date_range: string | [string, string]
  dimensions?: string[]
  order_by?: [string, 'asc' | 'desc'][]
  include?: { total_rows?: boolean; imports?: boolean; time_labels?: boolean }
  pagination?: { limit: number; offset: number }
  filters?: unknown[]
}

export type PlausibleRevenue = { value: number; currency: string; short?: string; long?: string }

export type PlausibleMetricValue = number | PlausibleRevenue | null

export type PlausibleRow = { dimensions: string[]; metrics: PlausibleMetricValue[] }

export type PlausibleQueryResult = {
  results: PlausibleRow[]
  meta: Record<string, unknown>
  query: PlausibleQueryBody & { date_range: [string, string] }
}

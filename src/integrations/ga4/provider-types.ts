/** GA4 shapes as the Admin API v1beta, Data API v1beta and Measurement Protocol send them (providers.md 1.3). */

export interface Ga4Property {
  readonly name: string
  readonly parent?: string
  readonly account?: string
  readonly displayName?: string
  readonly timeZone?: string
  readonly currencyCode?: string
  readonly industryCategory?: string
  readonly propertyType?: string
  readonly serviceLevel?: string
  readonly createTime?: string
  readonly updateTime?: string
  readonly deleteTime?: string
  readonly expireTime?: string
}

export interface Ga4PropertyList {
  readonly properties?: readonly Ga4Property[]
  readonly nextPageToken?: string
}

export interface Ga4PropertySummary {
  readonly property: string
  readonly displayName?: string
  readonly propertyType?: string
  readonly parent?: string
}

export interface Ga4AccountSummary {
  readonly name: string
  readonly account: string
  readonly displayName?: string
  readonly propertySummaries?: readonly Ga4PropertySummary[]
}

export interface Ga4AccountSummaryList {
  readonly accountSummaries?: readonly Ga4AccountSummary[]
  readonly nextPageToken?: string
}

export interface Ga4Header {
  readonly name: string
  readonly type?: string
}

export interface Ga4ReportRow {
  readonly dimensionValues?: readonly { readonly value?: string }[]
  readonly metricValues?: readonly { readonly value?: string }[]
}

export interface Ga4QuotaStatus {
  readonly consumed?: number
  readonly remaining?: number
}

export interface Ga4RunReportResponse {
  readonly dimensionHeaders?: readonly Ga4Header[]
  readonly metricHeaders?: readonly Ga4Header[]
  readonly rows?: readonly Ga4ReportRow[]
  /** Omitted when zero (proto3 JSON leaves default values out). */
  readonly rowCount?: number
  readonly metadata?: { readonly currencyCode?: string; readonly timeZone?: string }
  readonly propertyQuota?: Readonly<Record<string, Ga4QuotaStatus>>
  readonly kind?: string
}

/** One event of a Measurement Protocol request. */
export interface Ga4MpEvent {
  readonly name: string
  readonly params: Record<string, string | number>
}

export interface Ga4MpPayload {
  readonly client_id: string
  readonly timestamp_micros?: number
  readonly events: readonly Ga4MpEvent[]
  readonly [extra: string]: unknown
}

/** Shapes of Matomo's Reporting API answers (providers.md 6.3). Scalars are often strings. */

export interface MatomoSite {
  readonly idsite: string
  readonly name: string
  readonly main_url?: string
  readonly ts_created?: string
  readonly timezone?: string
  readonly currency?: string
  readonly group?: string
  readonly ecommerce?: string
  readonly type?: string
  readonly [key: string]: unknown
}

export interface MatomoAction {
  readonly type: string
  readonly url?: string | null
  readonly pageTitle?: string | null
  readonly timestamp: number
  readonly eventCategory?: string
  readonly eventAction?: string
  readonly eventName?: string
  readonly eventValue?: number | string
  readonly goalName?: string
  readonly revenue?: number | string
  readonly siteSearchKeyword?: string
  readonly [key: string]: unknown
}

export interface MatomoVisit {
  readonly idSite: string
  readonly idVisit: string
  readonly visitorId: string
  readonly userId?: string | null
  readonly actionDetails?: readonly MatomoAction[]
  /** How many actions the visitor log left out of `actionDetails` (it keeps the first 500). */
  readonly truncatedActionsCount?: number | string
  readonly firstActionTimestamp: number
  readonly lastActionTimestamp: number
  readonly visitDuration?: string | number
  readonly actions?: string | number
  readonly visitConverted?: string | number
  readonly goalConversions?: number | string
  readonly siteCurrency?: string
  readonly referrerType?: string
  readonly referrerName?: string
  readonly referrerUrl?: string
  readonly deviceType?: string
  readonly browserName?: string
  readonly operatingSystemName?: string
  readonly country?: string
  readonly countryCode?: string
  readonly region?: string
  readonly city?: string
  readonly languageCode?: string
  readonly campaignName?: string
  readonly campaignSource?: string
  readonly campaignMedium?: string
  readonly campaignKeyword?: string
  readonly campaignContent?: string
  readonly [key: string]: unknown
}

export interface MatomoVisitorProfile {
  readonly visitorId: string
  readonly userId?: string | null
  readonly totalVisits?: number | string
  readonly totalPageViews?: number | string
  readonly totalActions?: number | string
  /** `date` is the visit's firstActionTimestamp in unix seconds, not a day (plugins/Live/VisitorDetails.php). */
  readonly firstVisit?: { readonly date?: number | string; readonly [key: string]: unknown }
  readonly lastVisit?: { readonly date?: number | string; readonly [key: string]: unknown }
  readonly lastVisits?: readonly MatomoVisit[]
  /** True when the visitor has more visits than the profile aggregated (the 100 most recent). */
  readonly hasMoreVisits?: boolean
  /** Sorted ascending by visits: the most visited country is last (plugins/UserCountry/VisitorDetails.php). */
  readonly countries?: ReadonlyArray<{
    readonly country?: string
    readonly prettyName?: string
    readonly nb_visits?: number | string
  }>
  readonly [key: string]: unknown
}

/** A row of a Matomo row report (`UserCountry.getCountry`, `Actions.getPageUrls`…). */
export interface MatomoRow {
  readonly label: string
  readonly code?: string
  readonly url?: string
  readonly segment?: string
  readonly [metric: string]: unknown
}

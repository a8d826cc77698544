/** YouTube Data API v3 channels and YouTube Analytics API v2 reports, as they are sent (providers.md 8.3). */

export interface YoutubeChannel {
  readonly kind?: string
  readonly etag?: string
  readonly id: string
  readonly snippet?: {
    readonly title?: string
    readonly description?: string
    readonly customUrl?: string
    readonly publishedAt?: string
    readonly country?: string
    readonly defaultLanguage?: string
    readonly thumbnails?: Readonly<Record<string, unknown>>
  }
  /** Counts are strings. */
  readonly statistics?: {
    readonly viewCount?: string
    readonly subscriberCount?: string
    readonly hiddenSubscriberCount?: boolean
    readonly videoCount?: string
  }
  readonly contentDetails?: { readonly relatedPlaylists?: Readonly<Record<string, string>> }
  readonly [part: string]: unknown
}

export interface YoutubeChannelList {
  readonly kind?: string
  readonly etag?: string
  readonly pageInfo?: { readonly totalResults?: number; readonly resultsPerPage?: number }
  readonly items?: readonly YoutubeChannel[]
  readonly nextPageToken?: string
  readonly prevPageToken?: string
}

export interface YoutubeColumnHeader {
  readonly name: string
  readonly columnType: 'DIMENSION' | 'METRIC'
  readonly dataType: string
}

/** Rows are arrays in column order; metric values are JSON numbers. */
export interface YoutubeResultTable {
  readonly kind?: string
  readonly columnHeaders?: readonly YoutubeColumnHeader[]
  readonly rows?: readonly (readonly (string | number)[])[]
}

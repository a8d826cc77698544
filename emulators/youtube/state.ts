import type { BearerCheck } from '../google/bearer.js'
import { GoogleApiError } from '../google/errors.js'
import type { GoogleTokenAuthority } from '../google/token-authority.js'
import type { YoutubeSeed } from './data/seed.js'

const SCOPE = 'https://www.googleapis.com/auth/'
/**
 * Scopes per call. channels.list: youtube, youtube.force-ssl, youtube.readonly or youtubepartner
 * (https://developers.google.com/youtube/v3/docs/channels/list#auth); `onBehalfOfContentOwner` and
 * content-owner reports need youtubepartner (https://developers.google.com/youtube/analytics/content_owner_reports).
 * reports.query takes any of its discovery document's scopes: youtube, youtube.readonly,
 * yt-analytics.readonly, yt-analytics-monetary.readonly (youtubeAnalytics discovery, `reports.query.scopes`),
 * and, as its reference page now says ("Important: API requests to this method now require access to the
 * https://www.googleapis.com/auth/youtube.readonly scope"), youtube.readonly besides
 * (https://developers.google.com/youtube/analytics/reference/reports/query); an Analytics scope alone is
 * refused. Monetary metrics need yt-analytics-monetary.readonly
 * (https://developers.google.com/youtube/analytics/metrics#Revenue_Metrics).
 */
export const SCOPES = {
  youtubeRead: [
    `${SCOPE}youtube.readonly`,
    `${SCOPE}youtube`,
    `${SCOPE}youtube.force-ssl`,
    `${SCOPE}youtubepartner`,
  ],
  partner: [`${SCOPE}youtubepartner`],
  analytics: [
    `${SCOPE}yt-analytics.readonly`,
    `${SCOPE}yt-analytics-monetary.readonly`,
    `${SCOPE}youtube`,
    `${SCOPE}youtube.readonly`,
  ],
  reportsReadonly: [`${SCOPE}youtube.readonly`],
  monetary: [`${SCOPE}yt-analytics-monetary.readonly`],
} as const

export interface YoutubeQuotaLimits {
  /**
   * Data API units a day, 10,000 by default; channels.list costs 1
   * (https://developers.google.com/youtube/v3/determine_quota_cost).
   */
  readonly dataUnitsPerDay: number
  /** Analytics API queries a day: not published by Google; the default is the emulator's. */
  readonly analyticsQueriesPerDay: number
}

const DATA_QUOTA_MESSAGE =
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.'
const ANALYTICS_QUOTA_MESSAGE =
  "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'youtubeanalytics.googleapis.com'."

/**
 * YouTube refuses over-quota calls with 403 `quotaExceeded`, not 429
 * (https://developers.google.com/youtube/v3/docs/errors#general, "quotaExceeded").
 */
export function quotaExceeded(message: string, domain: string): GoogleApiError {
  return new GoogleApiError(403, message, {
    status: 'PERMISSION_DENIED',
    errors: [{ message, domain, reason: 'quotaExceeded' }],
  })
}

export class YoutubeState {
  private dataUnits = 0
  private analyticsQueries = 0

  constructor(
    readonly seed: YoutubeSeed,
    readonly authority: GoogleTokenAuthority,
    readonly options: { seed: number; factsPerDay: number },
    private limits: YoutubeQuotaLimits,
  ) {}

  now(): number {
    return this.authority.now()
  }

  bearer(service: string): BearerCheck {
    return { authority: this.authority, service, legacyErrors: true }
  }

  setQuota(limits: Partial<YoutubeQuotaLimits>): void {
    this.limits = { ...this.limits, ...limits }
  }

  resetQuota(): void {
    this.dataUnits = 0
    this.analyticsQueries = 0
  }

  chargeData(units: number): void {
    if (this.dataUnits + units > this.limits.dataUnitsPerDay)
      throw quotaExceeded(DATA_QUOTA_MESSAGE, 'youtube.quota')
    this.dataUnits += units
  }

  chargeAnalytics(): void {
    if (this.analyticsQueries + 1 > this.limits.analyticsQueriesPerDay) {
      throw quotaExceeded(ANALYTICS_QUOTA_MESSAGE, 'usageLimits')
    }
    this.analyticsQueries += 1
  }
}

import { apiUrlOverride } from '../google/oauth.js'
import type { Credentials } from '../types.js'

/** Data API v3 (channels) and Analytics API v2 (reports) live on two hosts; neither has regions. */
export const YOUTUBE_DATA_URL = 'https://youtube.googleapis.com'
export const YOUTUBE_ANALYTICS_URL = 'https://youtubeanalytics.googleapis.com'

/** An `api_url` (an emulator, a proxy) serves both APIs: their paths (`/youtube/v3`, `/v2`) do not collide. */
export function youtubeDataBase(credentials: Credentials): string {
  return apiUrlOverride(credentials) ?? YOUTUBE_DATA_URL
}

export function youtubeAnalyticsBase(credentials: Credentials): string {
  return apiUrlOverride(credentials) ?? YOUTUBE_ANALYTICS_URL
}

import { ProviderError } from '../../errors.js'
import { secondsUntilMidnightIn } from '../zones.js'

/**
 * Google's daily API quotas reset at midnight Pacific Time, whatever the caller's time zone
 * (YouTube Data API quota documentation).
 */
export const GOOGLE_QUOTA_TIME_ZONE = 'America/Los_Angeles'

/**
 * YouTube's quota and rate-limit refusals are 403s (`quotaExceeded`, `rateLimitExceeded`,
 * `userRateLimitExceeded`), not 429s. ProviderError keeps only Google's message, so they are told apart
 * from a real permission refusal by the messages Google gives those reasons.
 */
const QUOTA_MESSAGE = /exceeded your\s.*quota|quota exceeded|rate limit exceeded/i

export function isGoogleQuotaRefusal(err: unknown): err is ProviderError {
  return err instanceof ProviderError && err.status === 403 && QUOTA_MESSAGE.test(err.providerMessage)
}

/**
 * Turns a quota 403 into the 429 callers expect for a rate limit. A daily quota comes back at midnight
 * Pacific Time, so that is when the caller is told to retry; a per-minute rate limit gets no hint.
 */
export function asRateLimit(err: ProviderError, now: number = Date.now()): ProviderError {
  const daily = /quota/i.test(err.providerMessage)
  const retryAfter = daily ? secondsUntilMidnightIn(GOOGLE_QUOTA_TIME_ZONE, now) : err.retryAfterSeconds
  return new ProviderError(429, err.providerMessage, retryAfter)
}

/** Runs a provider call, reporting Google's quota 403s as 429s. */
export async function withGoogleQuota<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (isGoogleQuotaRefusal(err)) throw asRateLimit(err)
    throw err
  }
}

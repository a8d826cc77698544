import { GoogleApiError } from '../../google/errors.js'

/**
 * GA4's property quota for standard properties: 200,000 core tokens a day and 40,000 an hour per property,
 * 14,000 an hour per project and property, 10 concurrent requests, 10 server errors an hour, 120
 * potentially thresholded requests an hour; over a limit, 429 RESOURCE_EXHAUSTED
 * (https://developers.google.com/analytics/devguides/reporting/data/v1/quotas; PropertyQuota in
 * googleapis/googleapis@5bb0518f:google/analytics/data/v1beta/data.proto).
 */

export interface QuotaLimits {
  readonly tokensPerDay: number
  readonly tokensPerHour: number
}

export const STANDARD_LIMITS: QuotaLimits = { tokensPerDay: 200_000, tokensPerHour: 40_000 }

interface Usage {
  day: number
  hour: number
}

const status = (consumed: number, limit: number) => ({ consumed, remaining: Math.max(0, limit - consumed) })

export class PropertyQuotas {
  private readonly usage = new Map<string, Usage>()

  constructor(private limits: QuotaLimits = STANDARD_LIMITS) {}

  setLimits(limits: Partial<QuotaLimits>): void {
    this.limits = { ...this.limits, ...limits }
  }

  reset(): void {
    this.usage.clear()
  }

  /** Refuses with 429 RESOURCE_EXHAUSTED once a bucket is spent; otherwise charges `tokens`. */
  charge(property: string, tokens: number) {
    const u = this.usage.get(property) ?? { day: 0, hour: 0 }
    if (u.hour >= this.limits.tokensPerHour) {
      throw new GoogleApiError(
        429,
        'Exhausted property tokens per hour for a property. Wait until the hour resets before sending more requests.',
      )
    }
    if (u.day >= this.limits.tokensPerDay) {
      throw new GoogleApiError(
        429,
        'Exhausted property tokens per day for a property. Wait until the day resets before sending more requests.',
      )
    }
    u.day += tokens
    u.hour += tokens
    this.usage.set(property, u)
    return {
      tokensPerDay: status(u.day, this.limits.tokensPerDay),
      tokensPerHour: status(u.hour, this.limits.tokensPerHour),
      concurrentRequests: { consumed: 0, remaining: 10 },
      serverErrorsPerProjectPerHour: { consumed: 0, remaining: 10 },
      potentiallyThresholdedRequestsPerHour: { consumed: 0, remaining: 120 },
      tokensPerProjectPerHour: status(u.hour, Math.round(this.limits.tokensPerHour * 0.35)),
    }
  }
}

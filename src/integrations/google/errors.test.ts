import { describe, expect, it } from 'vitest'
import { ProviderError } from '../../errors.js'
import { asRateLimit, isGoogleQuotaRefusal, withGoogleQuota } from './errors.js'

const QUOTA =
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.'

describe('Google quota refusals', () => {
  it('recognises quota and rate-limit 403s, and not permission 403s', () => {
    expect(isGoogleQuotaRefusal(new ProviderError(403, QUOTA))).toBe(true)
    expect(isGoogleQuotaRefusal(new ProviderError(403, 'User Rate Limit Exceeded'))).toBe(true)
    expect(
      isGoogleQuotaRefusal(new ProviderError(403, 'Request had insufficient authentication scopes.')),
    ).toBe(false)
    expect(isGoogleQuotaRefusal(new ProviderError(400, QUOTA))).toBe(false)
  })

  it('turns a daily quota 403 into a 429 retried at midnight Pacific', () => {
    const now = Date.parse('2024-05-01T06:00:00Z') // 23:00 PDT
    const err = asRateLimit(new ProviderError(403, QUOTA), now)
    expect(err.status).toBe(429)
    expect(err.retryAfterSeconds).toBe(3600)
  })

  it('passes other failures through', async () => {
    const denied = new ProviderError(403, 'The caller does not have permission')
    await expect(withGoogleQuota(() => Promise.reject(denied))).rejects.toBe(denied)
    await expect(withGoogleQuota(() => Promise.reject(new ProviderError(403, QUOTA)))).rejects.toMatchObject({
      status: 429,
    })
  })
})

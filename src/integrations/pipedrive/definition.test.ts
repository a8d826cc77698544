import { describe, expect, it } from 'vitest'
import pipedrive from './definition.js'

describe('Pipedrive retry policy', () => {
  const spent = (
    status: number,
    headers: Record<string, string | string[] | undefined>,
    path = '/api/v2/persons',
  ) =>
    pipedrive.retry.dailyQuotaSpent?.(
      status,
      { success: false, error: 'Request over limit' },
      headers,
      path,
    ) === true

  it('takes a 429 while the 2-second window has room for the daily budget, and any other for a burst', () => {
    expect(
      spent(429, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '2' }),
    ).toBe(true)
    expect(spent(429, { 'x-ratelimit-remaining': ['3'] })).toBe(true)
    // The window spent, or no window headers at all: a burst refusal, waited out as before.
    expect(
      spent(429, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }),
    ).toBe(false)
    expect(spent(429, {})).toBe(false)
    expect(spent(429, { 'x-ratelimit-remaining': 'many' })).toBe(false)
    expect(spent(503, { 'x-ratelimit-remaining': '19' })).toBe(false)
    // A search has a burst limit of its own, which may answer the token's general window: always a burst.
    expect(spent(429, { 'x-ratelimit-remaining': '19' }, '/api/v2/persons/search?term=x')).toBe(false)
  })
})

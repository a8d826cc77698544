import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { retryDelayMs } from './retry.js'

const policy = { on: [429, 503], afterHeaders: ['retry-after'] }

describe('retryDelayMs', () => {
  it('does not retry statuses outside the policy', () => {
    expect(retryDelayMs(policy, 400, {}, 0)).toBeUndefined()
  })
  it('honours retry-after in seconds and as an HTTP date', () => {
    expect(retryDelayMs(policy, 429, { 'retry-after': '2' }, 0)).toBe(2000)
    const now = Date.parse('2024-01-01T00:00:00Z')
    expect(retryDelayMs(policy, 429, { 'retry-after': 'Mon, 01 Jan 2024 00:00:03 GMT' }, 0, now)).toBe(3000)
  })
  it('reads a wait in milliseconds from a millisecond header, after the seconds headers', () => {
    const hubspot = { ...policy, afterMillisecondsHeaders: ['x-hubspot-ratelimit-interval-milliseconds'] }
    expect(retryDelayMs(hubspot, 429, { 'x-hubspot-ratelimit-interval-milliseconds': '10000' }, 0)).toBe(
      10_000,
    )
    expect(
      retryDelayMs(
        hubspot,
        429,
        { 'retry-after': '1', 'x-hubspot-ratelimit-interval-milliseconds': '10000' },
        0,
      ),
    ).toBe(1000)
    expect(retryDelayMs(policy, 429, { 'x-hubspot-ratelimit-interval-milliseconds': '10000' }, 0)).toBe(200)
  })
  it('backs off exponentially without a header, never negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), (attempt) => {
        const wait = retryDelayMs(policy, 503, {}, attempt)!
        expect(wait).toBeGreaterThan(0)
        expect(retryDelayMs(policy, 503, {}, attempt + 1)).toBe(wait * 2)
      }),
    )
  })
})

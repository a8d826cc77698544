import { describe, expect, it } from 'vitest'
import { fibonacciMinutes, parseRetryAfterMs, retryDelayMs } from './retry-schedule.js'

describe('retry schedule', () => {
  it('waits Fibonacci minutes: 1, 2, 3, 5, 8, 13, 21', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(fibonacciMinutes)).toEqual([1, 2, 3, 5, 8, 13, 21])
  })

  it('scales with the length of a minute', () => {
    expect(retryDelayMs(3, 60_000)).toBe(180_000)
    expect(retryDelayMs(3, 10)).toBe(30)
  })

  it('honours a longer retry-after, capped', () => {
    expect(retryDelayMs(1, 10, 5_000)).toBe(5_000)
    expect(retryDelayMs(4, 60_000, 1_000)).toBe(300_000)
    expect(retryDelayMs(1, 10, 10 ** 12, 60_000)).toBe(60_000)
  })

  it('reads retry-after as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfterMs('7', now)).toBe(7_000)
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfterMs('soon', now)).toBeUndefined()
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined()
  })
})

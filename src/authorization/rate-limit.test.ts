import { describe, expect, it } from 'vitest'
import { RateLimiter } from './rate-limit.js'

describe('RateLimiter', () => {
  it('allows a burst of perMinute, then says how long to wait, and refills over time', () => {
    let now = 0
    const limiter = new RateLimiter(3, 100, () => now)
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([
      undefined,
      undefined,
      undefined,
    ])
    expect(limiter.take('a')).toBe(20)
    expect(limiter.take('b')).toBeUndefined()
    now += 20_000
    expect(limiter.take('a')).toBeUndefined()
    expect(limiter.take('a')).toBe(20)
  })

  it('keeps at most maxKeys buckets, forgetting the least recently used', () => {
    const limiter = new RateLimiter(1, 3, () => 0)
    for (const key of ['a', 'b', 'c']) limiter.take(key)
    limiter.take('a')
    limiter.take('d')
    expect(limiter.size).toBe(3)
    // b was the least recently used: forgotten, so it starts with a full bucket; a is still empty.
    expect(limiter.take('b')).toBeUndefined()
    expect(limiter.take('a')).toBeGreaterThan(0)
    for (let i = 0; i < 10_000; i++) limiter.take(`flood-${i}`)
    expect(limiter.size).toBe(3)
  })
})

/**
 * Token buckets per key (a client address, a workspace) for the unauthenticated authorization endpoints:
 * `perMinute` requests a minute, in bursts of up to that many. In memory and per process, which is enough
 * to keep one client from filling the state table or probing through the key page; with N processes the
 * effective limit is up to N times higher. Memory is bounded: past `maxKeys` keys the least recently used
 * bucket is forgotten (it starts full again if that key returns).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()
  private readonly perMs: number

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000
  }

  /** Takes one request from `key`'s bucket: undefined when allowed, else the seconds until one is. */
  take(key: string): number | undefined {
    const t = this.now()
    const found = this.buckets.get(key)
    // Re-inserted on every use, so the Map's order is least recently used first.
    if (found) this.buckets.delete(key)
    else if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!)
    const bucket = found ?? { tokens: this.perMinute, at: t }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (t - bucket.at) * this.perMs)
    bucket.at = t
    let wait: number | undefined
    if (bucket.tokens >= 1) bucket.tokens -= 1
    else wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000))
    this.buckets.set(key, bucket)
    return wait
  }

  get size(): number {
    return this.buckets.size
  }
}

/**
 * When to try a failed delivery again. Unified.to documents Fibonacci minutes between retries (1, 2, 3,
 * 5, 8, ...; unified-behaviour.md 1.3); a receiver's own `retry-after` wins when it asks for longer, since
 * trying sooner would only meet another 429.
 */
export function fibonacciMinutes(failedAttempts: number): number {
  let a = 1
  let b = 2
  for (let i = 1; i < failedAttempts; i++) [a, b] = [b, a + b]
  return a
}

/** `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const date = Date.parse(text)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - nowMs)
}

/**
 * The wait after the `failedAttempts`-th failed attempt (1-based). `minuteMs` is the length of a minute
 * (tests shorten it); `retryAfterMs` is what the receiver asked for, capped so a hostile value cannot park a
 * delivery for ever.
 */
export function retryDelayMs(
  failedAttempts: number,
  minuteMs: number,
  retryAfterMs?: number,
  maxRetryAfterMs = 24 * 60 * 60_000,
): number {
  const scheduled = fibonacciMinutes(failedAttempts) * minuteMs
  if (retryAfterMs === undefined) return scheduled
  return Math.max(scheduled, Math.min(retryAfterMs, maxRetryAfterMs))
}

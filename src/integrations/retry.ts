import type { RetryPolicy } from './types.js'

const BASE_DELAY_MS = 200

type Headers = Readonly<Record<string, string | string[] | undefined>>

/** The wait a provider asked for with one of its wait headers (seconds or an HTTP date), in ms. */
export function providerWaitMs(
  policy: RetryPolicy,
  headers: Headers,
  now: number = Date.now(),
): number | undefined {
  for (const name of policy.afterHeaders) {
    const raw = headers[name.toLowerCase()]
    const value = Array.isArray(raw) ? raw[0] : raw
    if (value === undefined || value === '') continue
    const seconds = Number(value)
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
    const date = Date.parse(value)
    if (!Number.isNaN(date)) return Math.max(0, date - now)
  }
  for (const name of policy.afterMillisecondsHeaders ?? []) {
    const raw = headers[name.toLowerCase()]
    const ms = Number(Array.isArray(raw) ? raw[0] : raw)
    if (raw !== undefined && raw !== '' && Number.isFinite(ms)) return Math.max(0, ms)
  }
  return undefined
}

/**
 * How long to wait before retrying a failed provider call, or undefined when the status is not retryable.
 * The provider's own wait header wins over exponential backoff.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  status: number,
  headers: Headers,
  attempt: number,
  now: number = Date.now(),
): number | undefined {
  if (!policy.on.includes(status)) return undefined
  return providerWaitMs(policy, headers, now) ?? BASE_DELAY_MS * 2 ** attempt
}

import { setTimeout as sleepFor } from 'node:timers/promises'
import { ApiError } from '../../errors.js'

/**
 * Waits before each read-back of a profile write. Mixpanel applies profile updates asynchronously, in
 * "real-time (less than 1 minute delay)" (docs.mixpanel.com/docs/tracking-methods/id-management/
 * identifying-users-simplified), so the reads back off to a total of one minute. Each read is one Query API
 * query (60 an hour per project: mixpanel/docs@ba22906:reference/rate-limits.mdx): a write usually costs
 * one or two, at most six.
 */
export const PROFILE_PROBE_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 16_000, 29_000]

export interface SettleOptions {
  readonly delays?: readonly number[]
  readonly sleep?: (ms: number) => Promise<unknown>
}

/**
 * Resolves once `shown` says Mixpanel shows the write (read after each delay), so that a write answered
 * 200 is one the next read sees. When it does not show within the delays, or a read-back fails, the
 * answer is a 504 saying that Mixpanel accepted the write and that it may still apply: the write is
 * reported, never silently assumed.
 */
export async function untilShown(
  shown: () => Promise<boolean>,
  what: string,
  options: SettleOptions = {},
): Promise<void> {
  const delays = options.delays ?? PROFILE_PROBE_DELAYS_MS
  const sleep = options.sleep ?? sleepFor
  const total = delays.reduce((a, b) => a + b, 0)
  for (const delay of delays) {
    await sleep(delay)
    let ok: boolean
    try {
      ok = await shown()
    } catch (err) {
      // A provider's failure says what happened; anything else is only named, as the engine does.
      const reason =
        err instanceof Error && !(err instanceof TypeError) ? err.message : 'an answer of an unexpected shape'
      throw new ApiError(
        504,
        `Mixpanel accepted ${what}, but reading it back failed (${reason}); Mixpanel normally applies it within a minute`,
        {},
        {},
        { cause: err },
      )
    }
    if (ok) return
  }
  throw new ApiError(
    504,
    `Mixpanel accepted ${what} but did not show it within ${total / 1000} s (Mixpanel applies profile writes asynchronously); it may still apply`,
  )
}

import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import { PROFILE_PROBE_DELAYS_MS, untilShown } from './profile-settle.js'

/** A sleep that only records how long it was asked to wait. */
function recordingSleep() {
  const waits: number[] = []
  return { waits, sleep: async (ms: number) => void waits.push(ms) }
}

describe('waiting until Mixpanel shows a profile write', () => {
  it('reads back after each delay and stops at the first read that shows the write', async () => {
    const { waits, sleep } = recordingSleep()
    let reads = 0
    await untilShown(async () => ++reads === 3, 'the write', { sleep })
    expect(reads).toBe(3)
    expect(waits).toEqual(PROFILE_PROBE_DELAYS_MS.slice(0, 3))
  })

  it('answers a 504 saying the write was accepted when it does not show within the delays', async () => {
    const { waits, sleep } = recordingSleep()
    let reads = 0
    const err = await untilShown(
      async () => {
        reads++
        return false
      },
      'the profile update of visitor v1',
      { sleep },
    ).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).statusCode).toBe(504)
    expect((err as ApiError).message).toBe(
      'Mixpanel accepted the profile update of visitor v1 but did not show it within 60 s (Mixpanel applies profile writes asynchronously); it may still apply',
    )
    // Backing off to one minute in all (Mixpanel's stated bound), never more reads than delays.
    expect(waits).toEqual(PROFILE_PROBE_DELAYS_MS)
    expect(waits.reduce((a, b) => a + b, 0)).toBe(60_000)
    expect(reads).toBe(PROFILE_PROBE_DELAYS_MS.length)
  })

  it('stops at a failed read-back, naming the failure but not the shape of an unreadable answer', async () => {
    const { sleep } = recordingSleep()
    const failed = await untilShown(
      async () => {
        throw new Error('provider answered 429: rate limited')
      },
      'the write',
      { sleep },
    ).then(
      () => {
        throw new Error('resolved')
      },
      (e: unknown) => e as ApiError,
    )
    expect(failed.statusCode).toBe(504)
    expect(failed.message).toMatch(
      /^Mixpanel accepted the write, but reading it back failed \(provider answered 429/,
    )
    const odd = await untilShown(
      async () => {
        throw new TypeError("Cannot read properties of undefined (reading '$properties')")
      },
      'the write',
      { sleep },
    ).then(
      () => {
        throw new Error('resolved')
      },
      (e: unknown) => e as ApiError,
    )
    expect(odd.message).toContain('an answer of an unexpected shape')
    expect(odd.message).not.toContain('$properties')
  })
})

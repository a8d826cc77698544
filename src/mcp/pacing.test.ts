import { describe, expect, it } from 'vitest'
import { turnsDuring } from '../../test/support/loop-turns.js'
import { pacer } from './pacing.js'

describe('pacer', () => {
  it('runs at most `concurrency` at a time, starting them in the order handed, one a turn', async () => {
    const paced = pacer(2)
    let running = 0
    let most = 0
    const started: number[] = []
    const work = (i: number) => async () => {
      started.push(i)
      running++
      most = Math.max(most, running)
      // Waiting three turns, as on I/O: the next entry starts meanwhile, the one after it waits for a slot.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
      running--
      if (i === 3) throw new Error('three failed')
      return i
    }
    const { result, turns } = await turnsDuring(() =>
      Promise.allSettled(Array.from({ length: 10 }, (_, i) => paced(work(i)))),
    )
    expect(most).toBe(2)
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    // A failing entry gives its slot back: every other one still ran.
    expect(result.map((r) => (r.status === 'fulfilled' ? r.value : r.reason.message))).toEqual([
      0,
      1,
      2,
      'three failed',
      4,
      5,
      6,
      7,
      8,
      9,
    ])
    expect(turns).toBeGreaterThanOrEqual(10)
  })
})

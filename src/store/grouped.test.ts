import { describe, expect, it } from 'vitest'
import { groupedWrites } from './grouped.js'

describe('groupedWrites', () => {
  it('writes the items given together in one call and answers each caller its own result', async () => {
    const calls: number[][] = []
    const write = groupedWrites(async (items: number[]) => {
      calls.push(items)
      return items.map((i) => i * 10)
    })
    const together = await Promise.all([write(1), write(2), write(3)])
    const later = await write(4)
    expect(together).toEqual([10, 20, 30])
    expect(later).toBe(40)
    expect(calls).toEqual([[1, 2, 3], [4]])
  })

  it('fails every caller of a failed write, and the next write starts afresh', async () => {
    let fail = true
    const write = groupedWrites(async (items: string[]) => {
      if (fail) throw new Error('disk full')
      return items
    })
    const results = await Promise.allSettled([write('a'), write('b')])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    fail = false
    await expect(write('c')).resolves.toBe('c')
  })

  it('runs one write at a time: items given while one runs go out together in the next', async () => {
    const calls: number[][] = []
    let running = 0
    let most = 0
    let release: () => void = () => undefined
    const write = groupedWrites(async (items: number[]) => {
      calls.push(items)
      most = Math.max(most, ++running)
      if (items[0] === 1) await new Promise<void>((r) => (release = r))
      running--
      return items.map((i) => -i)
    })
    const first = write(1)
    await new Promise((r) => setImmediate(r))
    expect(calls).toEqual([[1]])
    const during = [write(2), write(3)]
    await new Promise((r) => setImmediate(r))
    await new Promise((r) => setImmediate(r))
    // Still one write: the second waits for the first to finish.
    expect(calls).toEqual([[1]])
    const alsoDuring = write(4)
    release()
    expect(await Promise.all([first, ...during, alsoDuring])).toEqual([-1, -2, -3, -4])
    expect(calls).toEqual([[1], [2, 3, 4]])
    expect(most).toBe(1)
  })
})

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
})

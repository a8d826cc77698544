import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { pageWindow, readWindow } from './page-window.js'

describe('pageWindow', () => {
  it('reads an aligned offset as one page and any other as two', () => {
    expect(pageWindow(40, 20)).toEqual({ pageSize: 20, pages: [3], skip: 0 })
    expect(pageWindow(45, 20)).toEqual({ pageSize: 20, pages: [3, 4], skip: 5 })
  })

  it('returns exactly rows offset..offset+limit of the whole list', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(60),
        fc.integer({ min: 1, max: 25 }),
        fc.nat(80),
        async (total, limit, offset) => {
          const all = Array.from({ length: total }, (_, i) => i)
          const calls: number[] = []
          const got = await readWindow(pageWindow(offset, limit), limit, async (page, size) => {
            calls.push(page)
            return all.slice((page - 1) * size, page * size)
          })
          expect(got).toEqual(all.slice(offset, offset + limit))
          expect(calls.length).toBeLessThanOrEqual(2)
        },
      ),
    )
  })

  it('takes a page far larger than asked without overflowing the stack, and keeps only the window', async () => {
    const huge = Array.from({ length: 500_000 }, (_, i) => i)
    const got = await readWindow(pageWindow(0, 2), 2, async () => huge)
    expect(got).toEqual([0, 1])
  })
})

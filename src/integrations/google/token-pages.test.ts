import { describe, expect, it } from 'vitest'
import { memoryCursors } from '../cursors.js'
import { readTokenWindow } from './token-pages.js'

/** A provider of `total` numbered items in pages of `size`, whose tokens are opaque. */
function provider(total: number, size: number) {
  const calls: (string | undefined)[] = []
  const fetchPage = async (token: string | undefined) => {
    calls.push(token)
    const start = token ? Number(token.slice(3)) : 0
    const items = Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, i) => start + i)
    const next = start + size < total ? `tok${start + size}` : undefined
    return { items, ...(next ? { nextPageToken: next } : {}) }
  }
  return { calls, fetchPage }
}

describe('readTokenWindow', () => {
  it('reads a window spanning pages and remembers tokens so the next read starts near it', async () => {
    const cursors = memoryCursors()
    const p = provider(1000, 200)
    const base = { cursors, scope: 's', fetchPage: p.fetchPage }
    expect(await readTokenWindow({ ...base, offset: 390, limit: 20 })).toEqual(
      Array.from({ length: 20 }, (_, i) => 390 + i),
    )
    expect(p.calls).toEqual([undefined, 'tok200', 'tok400'])
    p.calls.length = 0
    expect(await readTokenWindow({ ...base, offset: 600, limit: 5 })).toEqual([600, 601, 602, 603, 604])
    // The token for 600 came with the page at 400: one call, not a walk from the first page.
    expect(p.calls).toEqual(['tok600'])
  })

  it('stops at the last page and answers what exists', async () => {
    const p = provider(250, 200)
    const rows = await readTokenWindow({
      cursors: memoryCursors(),
      scope: 's',
      offset: 240,
      limit: 100,
      fetchPage: p.fetchPage,
    })
    expect(rows).toEqual([240, 241, 242, 243, 244, 245, 246, 247, 248, 249])
    expect(p.calls).toHaveLength(2)
  })

  it('keeps scopes apart', async () => {
    const cursors = memoryCursors()
    const a = provider(1000, 200)
    await readTokenWindow({
      cursors,
      scope: 'a',
      offset: 400,
      limit: 1,
      fetchPage: a.fetchPage,
    })
    const b = provider(1000, 200)
    await readTokenWindow({
      cursors,
      scope: 'b',
      offset: 400,
      limit: 1,
      fetchPage: b.fetchPage,
    })
    expect(b.calls).toEqual([undefined, 'tok200', 'tok400'])
  })
})

describe('readTokenWindow at a huge offset', () => {
  it('answers 400 naming offset without walking the provider when no cursor is near it', async () => {
    const p = provider(Number.MAX_SAFE_INTEGER, 200)
    const read = readTokenWindow({
      cursors: memoryCursors(),
      scope: 's',
      offset: 10_000_000_000,
      limit: 10,
      // A walk page by page would call this millions of times: stop the test long before that.
      fetchPage: async (token) => {
        if (p.calls.length >= 100) throw new Error('walked more than 100 pages')
        return p.fetchPage(token)
      },
    })
    await expect(read).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/^offset: /) })
    expect(p.calls).toEqual([])
  })
})

import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../errors.js'
import { CursorMemory, MAX_CURSOR_WALK } from './cursors.js'

describe('CursorMemory', () => {
  it('finds the nearest remembered cursor at or before an offset', () => {
    const m = new CursorMemory()
    m.set('c1|q', 100, 'after-100')
    m.set('c1|q', 200, 'after-200')
    expect(m.nearest('c1|q', 250)).toEqual({ offset: 200, cursor: 'after-200' })
    expect(m.nearest('c1|q', 200)).toEqual({ offset: 200, cursor: 'after-200' })
    expect(m.nearest('c1|q', 150)).toEqual({ offset: 100, cursor: 'after-100' })
    expect(m.nearest('c1|q', 99)).toBeUndefined()
    expect(m.nearest('c2|q', 250)).toBeUndefined()
  })

  it('looks up the nearest cursor below a huge offset in one step, not one per page skipped', () => {
    const m = new CursorMemory()
    m.set('s', 100, 'after-100')
    m.set('s', 300, 'after-300')
    const lookups = vi.spyOn(m, 'get')
    expect(m.nearest('s', 9_000_000_000)).toEqual({ offset: 300, cursor: 'after-300' })
    expect(m.nearest('empty', 9_000_000_000)).toBeUndefined()
    // One read of the cursor found; none for the offsets in between.
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(1)
  })

  it('refuses, before any provider call, a walk further than the bound from the nearest cursor', () => {
    const m = new CursorMemory()
    expect(m.walkStart('s', MAX_CURSOR_WALK)).toEqual({ offset: 0, cursor: undefined })
    const refused = (() => {
      try {
        m.walkStart('s', 9_000_000_000)
      } catch (err) {
        return err
      }
    })() as ApiError
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused.statusCode).toBe(400)
    expect(refused.message).toMatch(/^offset: 9000000000 /)
    m.set('s', 8_999_995_000, 'near')
    expect(m.walkStart('s', 9_000_000_000)).toEqual({ offset: 8_999_995_000, cursor: 'near' })
  })

  it('forgets the least recently used entry past its capacity', () => {
    const m = new CursorMemory(2)
    m.set('s', 1, 'a')
    m.set('s', 2, 'b')
    m.get('s', 1)
    m.set('s', 3, 'c')
    expect(m.get('s', 2)).toBeUndefined()
    expect(m.nearest('s', 2)).toEqual({ offset: 1, cursor: 'a' })
    expect(m.get('s', 1)).toBe('a')
    expect(m.nearest('s', 10)).toEqual({ offset: 3, cursor: 'c' })
  })

  it('forgets an entry when it expires, and walks from the next one below that still holds', () => {
    const clock = { now: 1_000 }
    const m = new CursorMemory(10, 100, () => clock.now)
    m.set('s', 10, 'older')
    clock.now = 1_050
    m.set('s', 20, 'newer')
    m.set('s', 30, 'kept longer', 5_000)
    clock.now = 1_100
    expect(m.get('s', 10)).toBeUndefined()
    expect(m.nearest('s', 25)).toEqual({ offset: 20, cursor: 'newer' })
    clock.now = 1_150
    expect(m.nearest('s', 25)).toBeUndefined()
    expect(m.nearest('s', 35)).toEqual({ offset: 30, cursor: 'kept longer' })
  })
})

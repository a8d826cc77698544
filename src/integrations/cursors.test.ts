import { describe, expect, it } from 'vitest'
import { CursorMemory } from './cursors.js'

describe('CursorMemory', () => {
  it('finds the nearest remembered cursor at or before an offset', () => {
    const m = new CursorMemory()
    m.set('c1|q', 100, 'after-100')
    m.set('c1|q', 200, 'after-200')
    expect(m.nearest('c1|q', 250, 50)).toEqual({ offset: 200, cursor: 'after-200' })
    expect(m.nearest('c1|q', 150, 50)).toEqual({ offset: 100, cursor: 'after-100' })
    expect(m.nearest('c2|q', 250, 50)).toBeUndefined()
  })
  it('forgets the least recently used entry past its capacity', () => {
    const m = new CursorMemory(2)
    m.set('s', 1, 'a')
    m.set('s', 2, 'b')
    m.get('s', 1)
    m.set('s', 3, 'c')
    expect(m.get('s', 2)).toBeUndefined()
    expect(m.get('s', 1)).toBe('a')
  })
})

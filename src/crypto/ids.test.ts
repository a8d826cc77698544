import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { newId, newTimeOrderedId } from './ids.js'

describe('ids', () => {
  it('writes a prefix and 20 base36 characters, random or time-ordered alike', () => {
    expect(newId('ac')).toMatch(/^ac_[0-9a-z]{20}$/)
    expect(newTimeOrderedId('ac')).toMatch(/^ac_[0-9a-z]{20}$/)
  })

  it('orders time-ordered ids by their time, whatever their random part', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 253_402_300_799_999 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        (at, later) => {
          expect(newTimeOrderedId('ac', at) < newTimeOrderedId('ac', at + later)).toBe(true)
        },
      ),
    )
  })

  it('never repeats an id made in the same millisecond', () => {
    const ids = Array.from({ length: 10_000 }, () => newTimeOrderedId('ac', 1_700_000_000_000))
    expect(new Set(ids).size).toBe(ids.length)
  })
})

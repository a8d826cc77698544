import { describe, expect, it } from 'vitest'
import { holdsValues, valueMarksUpTo } from './value-count.js'

describe('valueMarksUpTo', () => {
  it('counts nested containers, which hold no comma, as values', () => {
    expect(valueMarksUpTo(Buffer.from('[[[[]]]]'), 100)).toBe(4)
    // Three objects and three keys.
    expect(valueMarksUpTo(Buffer.from('{"a":{"b":{"c":1}}}'), 100)).toBe(6)
    expect(holdsValues(Buffer.from(`${'['.repeat(10)}${']'.repeat(10)}`), 10)).toBe(true)
  })

  it("counts an object's keys, which JSON.parse reads as it reads values", () => {
    expect(valueMarksUpTo(Buffer.from('{"k0":0,"k1":0,"k2":0}'), 100)).toBe(6)
    expect(valueMarksUpTo(Buffer.from('[{"a0":"x"},{"a1":"x"}]'), 100)).toBe(6)
  })

  it('counts within its range and stops at the limit', () => {
    const text = Buffer.from('[1,2,3]\n[4,5]')
    expect(valueMarksUpTo(text, 100, 0, 7)).toBe(3)
    expect(valueMarksUpTo(text, 2)).toBe(2)
    expect(holdsValues(text, 6)).toBe(false)
  })
})

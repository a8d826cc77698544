import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { holdsDistinctKeys, holdsValues, valueMarksUpTo } from './value-count.js'

describe('valueMarksUpTo', () => {
  it('counts nested containers, which hold no comma, as values', () => {
    expect(valueMarksUpTo(Buffer.from('[[[[]]]]'), 100)).toBe(4)
    expect(valueMarksUpTo(Buffer.from('{"a":{"b":{"c":1}}}'), 100)).toBe(3)
    expect(holdsValues(Buffer.from(`${'['.repeat(10)}${']'.repeat(10)}`), 10)).toBe(true)
  })

  it('counts within its range and stops at the limit', () => {
    const text = Buffer.from('[1,2,3]\n[4,5]')
    expect(valueMarksUpTo(text, 100, 0, 7)).toBe(3)
    expect(valueMarksUpTo(text, 2)).toBe(2)
    expect(holdsValues(text, 6)).toBe(false)
  })
})

describe('holdsDistinctKeys', () => {
  const keysOf = (value: unknown, into = new Set<string>()): Set<string> => {
    if (Array.isArray(value)) for (const v of value) keysOf(v, into)
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        into.add(k)
        keysOf(v, into)
      }
    }
    return into
  }

  it('counts the keys JSON.parse reads, not colons or quotes inside strings', () => {
    // Keys with colons of their own, escaped quotes, whitespace before the colon, and values that read like keys.
    const text = Buffer.from(
      '{"2026-01-01 10:00:00" : 1, "a\\"b":{"c":"x\\":y","d\\\\":"e:f"},\n"url":"http://x\\" : 1"}',
    )
    expect(keysOf(JSON.parse(text.toString())).size).toBe(5)
    expect(holdsDistinctKeys(text, 5)).toBe(true)
    expect(holdsDistinctKeys(text, 6)).toBe(false)
  })

  it('finds as many different keys as JSON.parse reads, in any JSON', () => {
    // JSON.stringify spells a key one way, so different spellings are different keys.
    const json = fc.jsonValue({ maxDepth: 4 })
    fc.assert(
      fc.property(json, fc.boolean(), (value, spaced) => {
        const text = Buffer.from(JSON.stringify(value, null, spaced ? 2 : undefined))
        const distinct = keysOf(value).size
        expect(holdsDistinctKeys(text, distinct)).toBe(distinct > 0)
        expect(holdsDistinctKeys(text, distinct + 1)).toBe(false)
      }),
    )
  })

  it('passes keys repeated row after row however many, and stops counting at the limit', () => {
    const rows = Buffer.from(
      JSON.stringify(Array.from({ length: 50_000 }, (_, i) => ({ label: `r${i}`, visits: i }))),
    )
    expect(holdsDistinctKeys(rows, 1000)).toBe(false)
    const distinct = Buffer.from(`{${Array.from({ length: 2000 }, (_, i) => `"k${i}":0`).join(',')}}`)
    expect(holdsDistinctKeys(distinct, 1000)).toBe(true)
  })
})

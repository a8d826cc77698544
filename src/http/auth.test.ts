import { describe, expect, it } from 'vitest'
import { keyFromHeader } from './auth.js'

describe('keyFromHeader', () => {
  it.each([
    ['Bearer abc.def', 'abc.def'],
    ['bearer abc.def', 'abc.def'],
    ['abc.def', 'abc.def'],
    ['  Bearer   abc.def ', 'abc.def'],
  ])('%j', (header, key) => expect(keyFromHeader(header)).toBe(key))
  it('is undefined when there is nothing', () => {
    expect(keyFromHeader(undefined)).toBeUndefined()
    expect(keyFromHeader('')).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { parseRawParams } from './raw-params.js'

describe('parseRawParams', () => {
  it('decodes the inner name=value string', () => {
    expect(parseRawParams('foo=bar&zoo=1&q=a%20b')).toEqual({ foo: 'bar', zoo: '1', q: 'a b' })
  })
  it('is empty when absent', () => {
    expect(parseRawParams(undefined)).toEqual({})
  })
  it('refuses a parameter without a name and a repeated raw', () => {
    expect(() => parseRawParams('=x')).toThrow(/without a name/)
    expect(() => parseRawParams(['a=1', 'b=2'])).toThrow(/raw/)
  })
})

import { describe, expect, it } from 'vitest'
import { parseRawParams, refuseOwnedRaw } from './raw-params.js'

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

describe('refuseOwnedRaw', () => {
  const integration = { page: 'page with limit and offset' }
  const object = { filter: 'use the parent_id filter' }
  it("refuses a name the integration's or the object's calls set, saying what to use instead", () => {
    expect(() => refuseOwnedRaw({ a: '1', page: '2' }, 'Acme', [integration, object])).toThrow(
      "raw: 'page' is set by Unigate for Acme; page with limit and offset",
    )
    expect(() => refuseOwnedRaw({ filter: 'x' }, 'Acme', [integration, object])).toThrow(
      "raw: 'filter' is set by Unigate for Acme; use the parent_id filter",
    )
  })
  it('passes every other name on, and names inherited from Object.prototype are not owned', () => {
    const raw = { a: '1', toString: 'x', constructor: 'y' }
    expect(refuseOwnedRaw(raw, 'Acme', [integration, undefined, object])).toBe(raw)
  })
  it('refuses a name the provider reads as an owned one, saying which', () => {
    const owned = { pageToken: 'Unigate pages with limit and offset' }
    const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    expect(() => refuseOwnedRaw({ page_token: 'x' }, 'Acme', [owned], camel)).toThrow(
      "raw: 'page_token' is set by Unigate for Acme (Acme reads it as 'pageToken'); Unigate pages with limit and offset",
    )
    expect(refuseOwnedRaw({ page_token: 'x' }, 'Acme', [owned])).toEqual({ page_token: 'x' })
  })
})

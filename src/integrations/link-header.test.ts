import { describe, expect, it } from 'vitest'
import { linkOf } from './link-header.js'

describe('linkOf', () => {
  const header =
    '<https://harvest.greenhouse.io/v1/applications?page=2&per_page=2>; rel="next",\n' +
    '<https://harvest.greenhouse.io/v1/applications?page=474&per_page=2>; rel="last"'

  it('finds a relation among several, across line breaks', () => {
    expect(linkOf(header, 'next')).toBe('https://harvest.greenhouse.io/v1/applications?page=2&per_page=2')
    expect(linkOf(header, 'last')).toBe('https://harvest.greenhouse.io/v1/applications?page=474&per_page=2')
  })

  it('answers undefined without the header or the relation', () => {
    expect(linkOf(undefined, 'next')).toBeUndefined()
    expect(linkOf(header, 'prev')).toBeUndefined()
    expect(linkOf('garbage', 'next')).toBeUndefined()
  })

  it('reads unquoted and multi-valued rel, and repeated headers', () => {
    expect(linkOf('<https://a/b?c=1,2>; rel=next', 'next')).toBe('https://a/b?c=1,2')
    expect(linkOf(['<https://a/1>; rel="prev"', '<https://a/3>; rel="next last"'], 'last')).toBe(
      'https://a/3',
    )
  })
})

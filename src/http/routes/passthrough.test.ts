import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizedProviderPath, providerTarget, resolvedDotSegments } from './passthrough.js'

describe('providerTarget', () => {
  it('decodes one encoded segment, query included (the SDK form)', () => {
    expect(providerTarget('/passthrough/cn_1/%2Fapi%2Fprojects%2F%3Flimit%3D2')).toEqual({
      connectionId: 'cn_1',
      path: 'api/projects/',
      query: 'limit=2',
    })
  })
  it('keeps literal slashes and the trailing slash', () => {
    expect(providerTarget('/passthrough/cn_1/api/users/@me/?x=1')).toEqual({
      connectionId: 'cn_1',
      path: 'api/users/@me/',
      query: 'x=1',
    })
  })
  it('merges a query inside the segment with the outer one', () => {
    expect(providerTarget('/passthrough/cn_1/v1%2Fusers%3Fx%3D1?y=2')?.query).toBe('x=1&y=2')
  })
})

describe('providerTarget dot-segments', () => {
  const pathOf = (raw: string) => providerTarget(`/passthrough/cn_1/${raw}`)?.path

  it('resolves dot-segments that stay below the base, literal or encoded', () => {
    expect(pathOf('v1/users/./me/../list')).toBe('v1/users/list')
    expect(pathOf('v1/%2e/users/%2E%2e/groups')).toBe('v1/groups')
    expect(pathOf('v1/users/..')).toBe('v1/')
    expect(pathOf(encodeURIComponent('/v1/users/../groups?x=1'))).toBe('v1/groups')
    expect(pathOf('v1\\users\\..\\groups')).toBe('v1/groups')
    // Dots inside a name are not dot-segments.
    expect(pathOf('v1/file..json/.well-known/...')).toBe('v1/file..json/.well-known/...')
  })

  it.each([
    ['literal', '../../admin'],
    ['literal after a segment', 'v1/../../admin'],
    ['encoded', '%2e%2e/%2e%2e/admin'],
    ['mixed case', '%2E./admin'],
    ['half encoded', '.%2e/admin'],
    ['encoded slash', '..%2F..%2Fadmin'],
    ['encoded slash inside a path', 'v1/..%2f..%2fadmin'],
    ['backslashes', '..\\..\\admin'],
    ['encoded backslash', 'v1/..%5C..%5Cadmin'],
    ['double-encoded', '%252e%252e/admin'],
    ['double-encoded slash', 'v1/%252e%252e%252fadmin'],
    ['the SDK form', encodeURIComponent('/../../admin')],
    ['the SDK form, double-encoded', encodeURIComponent('/%2e%2e/admin')],
  ])('refuses a path leaving the base (%s) with a 400 naming it', (_kind, raw) => {
    let error: unknown
    try {
      providerTarget(`/passthrough/cn_1/${raw}`)
    } catch (err) {
      error = err
    }
    expect(error).toMatchObject({ statusCode: 400 })
    expect((error as Error).message).toMatch(/^path '.*admin' leaves the connection's base address/)
  })

  it('answers 400, not 500, for a malformed escape', () => {
    expect(() => providerTarget('/passthrough/cn_1/%E0%A4%A')).toThrow(/not validly percent-encoded/)
  })
})

describe('normalizedProviderPath', () => {
  const outcome = (f: (p: string) => string, path: string) => {
    try {
      return { path: f(path) }
    } catch (err) {
      return { refused: (err as Error).message }
    }
  }

  it('answers what the segment-by-segment resolution answers, for any path, its shortcut included', () => {
    const piece = fc.constantFrom(
      '/',
      '//',
      '\\',
      '.',
      '..',
      '%2e',
      '%2E',
      '%252e',
      '%2F',
      '%',
      'a',
      'api',
      'v1',
      '-',
      '_',
      '~',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const path = pieces.join('')
        expect(outcome(normalizedProviderPath, path)).toEqual(outcome(resolvedDotSegments, path))
      }),
      { numRuns: 3000 },
    )
    fc.assert(
      fc.property(fc.string(), (path) => {
        expect(outcome(normalizedProviderPath, path)).toEqual(outcome(resolvedDotSegments, path))
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps a plain path as it is, less its leading slashes', () => {
    expect(normalizedProviderPath('//api/projects/1/persons/')).toBe('api/projects/1/persons/')
    expect(normalizedProviderPath('api//x')).toBe('api//x')
    expect(normalizedProviderPath('')).toBe('')
  })
})

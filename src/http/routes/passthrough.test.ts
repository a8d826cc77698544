import { describe, expect, it } from 'vitest'
import { providerTarget } from './passthrough.js'

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

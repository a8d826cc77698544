import { describe, expect, it } from 'vitest'
import { googleFieldOf } from './field-names.js'

describe('googleFieldOf', () => {
  it('reads a proto field name as its JSON name, and a JSON name as itself', () => {
    expect(googleFieldOf('page_token')).toBe('pageToken')
    expect(googleFieldOf('pageToken')).toBe('pageToken')
    expect(googleFieldOf('on_behalf_of_content_owner')).toBe('onBehalfOfContentOwner')
    expect(googleFieldOf('filter')).toBe('filter')
  })
})

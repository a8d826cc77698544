import { describe, expect, it } from 'vitest'
import type { HandlerContext } from '../types.js'
import { personUuidOf, rowVisitorId, scopedVisitorId, unscopedVisitorId } from './visitor-ids.js'

describe('PostHog visitor ids', () => {
  it("derives a new person's uuid from the team and distinct id as PostHog does", () => {
    // PostHog's own expectations: plugin-server/tests/worker/ingestion/person-uuid.test.ts.
    expect(personUuidOf('1', 'test')).toBe('246f7a43-5507-564f-b687-793ee3c2dd79')
    expect(personUuidOf('2', 'test')).toBe('00ce873a-549c-548e-bbec-cc804a385dd8')
    expect(personUuidOf('1', 'test2')).toBe('45c17302-ee44-5596-916a-0eba21f4b638')
  })

  it('scopes ids of a non-default project and reads them back', () => {
    const ctx = { settings: { project_id: '1' } } as unknown as HandlerContext
    expect(scopedVisitorId(ctx, '1', 'p-1')).toBe('p-1')
    expect(scopedVisitorId(ctx, '2', 'p-1')).toBe('2:p-1')
    expect(unscopedVisitorId('2', '2:p-1')).toBe('p-1')
    expect(unscopedVisitorId('2', 'p-1')).toBe('p-1')
  })

  it("names a row's person, else (no person: the nil uuid) its distinct id", () => {
    expect(rowVisitorId('0190a1b2-0000-7000-8000-000000000001', 'anon')).toBe(
      '0190a1b2-0000-7000-8000-000000000001',
    )
    expect(rowVisitorId('00000000-0000-0000-0000-000000000000', 'anon')).toBe('anon')
    expect(rowVisitorId(undefined, '')).toBeUndefined()
  })
})

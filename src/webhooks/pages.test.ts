import { describe, expect, it } from 'vitest'
import { deliveryPages } from './pages.js'

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }))

describe('deliveryPages', () => {
  it('types an initial backfill INITIAL-PARTIAL, the last page INITIAL-COMPLETE', () => {
    const pages = deliveryPages(records(5), 2, 'initial')
    expect(pages.map((p) => [p.type, p.records.length])).toEqual([
      ['INITIAL-PARTIAL', 2],
      ['INITIAL-PARTIAL', 2],
      ['INITIAL-COMPLETE', 1],
    ])
  })

  it('still says INITIAL-COMPLETE when there was nothing to backfill', () => {
    expect(deliveryPages([], 10, 'initial')).toEqual([{ type: 'INITIAL-COMPLETE', records: [] }])
  })

  it('produces no delivery for no changes, and pages of at most the limit otherwise', () => {
    expect(deliveryPages([], 10, 'VIRTUAL')).toEqual([])
    expect(deliveryPages(records(3), 3, 'VIRTUAL').map((p) => p.records.length)).toEqual([3])
  })
})

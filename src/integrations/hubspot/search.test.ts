import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import type { ListQuery } from '../types.js'
import { checkFilterCount, MAX_FILTERS_PER_GROUP, searchRequest } from './search.js'

const every: ListQuery = {
  limit: 10,
  offset: 0,
  updated_gte: new Date('2024-05-01T00:00:00Z'),
  query: 'ada',
  filters: { company_id: '700', deal_id: '800', user_id: '9001' },
}

describe('HubSpot search pages', () => {
  it('in id order, starts a page past the last id read, in the same filter group as the filters', () => {
    const body = searchRequest(every, [], 200, '12345')
    expect(body.after).toBeUndefined()
    expect(body.filterGroups).toHaveLength(1)
    const filters = body.filterGroups[0]!.filters
    expect(filters.at(-1)).toEqual({ propertyName: 'hs_object_id', operator: 'GT', value: '12345' })
    // Every unified filter and the id bound fit in one group (HubSpot takes at most ten).
    expect(filters).toHaveLength(5)
    expect(filters.length).toBeLessThanOrEqual(MAX_FILTERS_PER_GROUP)
    expect(body.sorts).toEqual([{ propertyName: 'hs_object_id', direction: 'ASCENDING' }])
  })

  it("takes HubSpot's guide at its word: six filters in a group, and a 400 naming the parameters past it", () => {
    expect(MAX_FILTERS_PER_GROUP).toBe(6)
    const filters = searchRequest(every, [], 200, '12345').filterGroups[0]!.filters
    expect(() => checkFilterCount(filters)).not.toThrow()
    const seven = [...filters, filters[1]!, filters[2]!]
    let refused: unknown
    try {
      checkFilterCount(seven)
    } catch (err) {
      refused = err
    }
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).statusCode).toBe(400)
    expect((refused as ApiError).message).toMatch(/^updated_gte, user_id, company_id, deal_id, offset/)
    expect((refused as ApiError).message).toContain('at most 6 in a group')
  })

  it('in descending id order, bounds the page below the last id read', () => {
    const body = searchRequest({ limit: 5, offset: 0, order: 'desc', filters: {} }, [], 5, '900')
    expect(body.filterGroups).toEqual([
      { filters: [{ propertyName: 'hs_object_id', operator: 'LT', value: '900' }] },
    ])
    expect(body.sorts).toEqual([{ propertyName: 'hs_object_id', direction: 'DESCENDING' }])
    expect(body.after).toBeUndefined()
  })

  it("with a caller's sort, pages by HubSpot's after offset and adds no id bound", () => {
    const body = searchRequest({ limit: 5, offset: 0, sort: 'updated_at', filters: {} }, [], 5, '400')
    expect(body.after).toBe('400')
    expect(body.filterGroups).toEqual([])
  })

  it('asks the first page without a bound or an offset', () => {
    const body = searchRequest({ limit: 5, offset: 0, filters: { user_id: '9001' } }, [], 5, undefined)
    expect(body.after).toBeUndefined()
    expect(body.filterGroups).toEqual([
      { filters: [{ propertyName: 'hubspot_owner_id', operator: 'EQ', value: '9001' }] },
    ])
  })
})

import { describe, expect, it } from 'vitest'
import {
  fromGa4Property,
  parentIdOf,
  toGa4Parent,
  toGa4PropertyCreate,
  toGa4PropertyName,
  toGa4PropertyUpdate,
} from './mappers.js'
import type { Ga4Property } from './provider-types.js'

/** As `GET /v1beta/properties?filter=parent:accounts/100` returns it (providers.md 1.3). */
const PROPERTY: Ga4Property = {
  name: 'properties/1000',
  parent: 'accounts/100',
  account: 'accounts/100',
  displayName: 'Acme Web',
  timeZone: 'America/Los_Angeles',
  currencyCode: 'USD',
  industryCategory: 'TECHNOLOGY',
  propertyType: 'PROPERTY_TYPE_ORDINARY',
  serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
  createTime: '2024-01-02T03:04:05.678Z',
  updateTime: '2024-05-01T00:00:00Z',
}

describe('fromGa4Property', () => {
  it('maps a property, keeping the resource name in raw.__id', () => {
    const p = fromGa4Property(PROPERTY)
    expect(p).toMatchObject({
      id: '1000',
      name: 'Acme Web',
      timezone: 'America/Los_Angeles',
      currency: 'USD',
      industry: 'TECHNOLOGY',
      parent_id: '100',
    })
    expect((p.created_at as Date).toISOString()).toBe('2024-01-02T03:04:05.678Z')
    expect((p.updated_at as Date).toISOString()).toBe('2024-05-01T00:00:00.000Z')
    expect(p.raw).toEqual({ ...PROPERTY, __id: 'properties/1000' })
  })

  it('keeps a property parent whole and drops the unspecified industry', () => {
    const p = fromGa4Property({
      name: 'properties/7',
      parent: 'properties/1000',
      industryCategory: 'INDUSTRY_CATEGORY_UNSPECIFIED',
    })
    expect(p.parent_id).toBe('properties/1000')
    expect(p.industry).toBeUndefined()
  })
})

describe('ids and parents', () => {
  it('accepts a bare or prefixed property id and refuses others as not found', () => {
    expect(toGa4PropertyName('1000')).toBe('properties/1000')
    expect(toGa4PropertyName('properties/1000')).toBe('properties/1000')
    expect(() => toGa4PropertyName('abc')).toThrow(/not found/)
  })

  it('round-trips parents', () => {
    expect(toGa4Parent('100')).toBe('accounts/100')
    expect(toGa4Parent('accounts/100')).toBe('accounts/100')
    expect(toGa4Parent('properties/5')).toBe('properties/5')
    expect(parentIdOf('accounts/100')).toBe('100')
    expect(() => toGa4Parent('acme')).toThrow(/not a GA4 account id/)
  })
})

describe('toGa4PropertyCreate', () => {
  it('builds the Admin API body', () => {
    expect(
      toGa4PropertyCreate({ name: 'Shop', timezone: 'Europe/Paris', currency: 'EUR', parent_id: '100' }),
    ).toEqual({ parent: 'accounts/100', displayName: 'Shop', timeZone: 'Europe/Paris', currencyCode: 'EUR' })
  })

  it('names every missing required field', () => {
    expect(() => toGa4PropertyCreate({ currency: 'EUR' })).toThrow(/parent_id .*name, timezone/)
  })
})

describe('toGa4PropertyUpdate', () => {
  it('sends only the given fields and their snake_case mask', () => {
    expect(toGa4PropertyUpdate({ name: 'New', industry: 'SHOPPING', id: '1', created_at: 'x' })).toEqual({
      property: { displayName: 'New', industryCategory: 'SHOPPING' },
      updateMask: ['display_name', 'industry_category'],
    })
  })

  it('passes raw provider fields with their mask paths', () => {
    expect(toGa4PropertyUpdate({ raw: { serviceLevel: 'GOOGLE_ANALYTICS_360' } })).toEqual({
      property: { serviceLevel: 'GOOGLE_ANALYTICS_360' },
      updateMask: ['service_level'],
    })
  })
})

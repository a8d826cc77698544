import { describe, expect, it } from 'vitest'
import { providerScopes, requestedPermissions, UnknownPermission } from './scopes.js'

const available = ['analytics_property_read', 'analytics_report_read', 'analytics_event_write']
const map = {
  analytics_property_read: ['https://www.googleapis.com/auth/analytics.readonly'],
  analytics_report_read: ['https://www.googleapis.com/auth/analytics.readonly'],
  analytics_event_write: [],
}

describe('requested permissions', () => {
  it('are all the integration offers when none are asked for', () => {
    expect(requestedPermissions(undefined, available, 'GA4')).toEqual(available)
    expect(requestedPermissions([''], available, 'GA4')).toEqual(available)
  })

  it('accept repeated and comma-joined names, without duplicates', () => {
    expect(
      requestedPermissions(
        ['analytics_report_read,analytics_property_read', 'analytics_report_read'],
        available,
        'GA4',
      ),
    ).toEqual(['analytics_report_read', 'analytics_property_read'])
  })

  it('refuse a permission the integration cannot grant, naming the ones it can', () => {
    expect(() => requestedPermissions(['hris_employee_read'], available, 'GA4')).toThrow(UnknownPermission)
    expect(() => requestedPermissions(['hris_employee_read'], available, 'GA4')).toThrow(
      /analytics_report_read/,
    )
  })
})

describe('provider scopes', () => {
  it('map unified permissions onto the provider scopes, once each', () => {
    expect(providerScopes(['analytics_property_read', 'analytics_report_read'], map)).toEqual([
      'https://www.googleapis.com/auth/analytics.readonly',
    ])
  })

  it('add the scopes the provider always needs, and nothing for a permission that needs none', () => {
    expect(providerScopes(['analytics_event_write'], map, ['openid'])).toEqual(['openid'])
  })
})

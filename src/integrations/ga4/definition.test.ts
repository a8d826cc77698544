import { describe, expect, it } from 'vitest'
import definition from './definition.js'
import { ga4AdminBase, ga4DataBase, ga4MeasurementBase } from './hosts.js'

describe('GA4 hosts', () => {
  it('uses Google’s three hosts, the EU collection host when asked, and api_url for all of them', () => {
    expect(ga4AdminBase({})).toBe('https://analyticsadmin.googleapis.com')
    expect(ga4DataBase({})).toBe('https://analyticsdata.googleapis.com')
    expect(ga4MeasurementBase({})).toBe('https://www.google-analytics.com')
    expect(ga4MeasurementBase({ region: 'eu' })).toBe('https://region1.google-analytics.com')
    const emu = { api_url: 'http://127.0.0.1:9/', region: 'eu' }
    expect([ga4AdminBase(emu), ga4DataBase(emu), ga4MeasurementBase(emu)]).toEqual([
      'http://127.0.0.1:9',
      'http://127.0.0.1:9',
      'http://127.0.0.1:9',
    ])
  })
})

describe('GA4 definition', () => {
  it('authenticates with a Google bearer token and maps permissions to Google scopes', () => {
    expect(definition.authHeaders({ access_token: 'ya29.x' })).toEqual({ authorization: 'Bearer ya29.x' })
    expect(definition.auth.kind).toBe('oauth2')
    if (definition.auth.kind !== 'oauth2') return
    expect(definition.auth.tokenUrl).toBe('https://oauth2.googleapis.com/token')
    expect(definition.auth.scopes.analytics_report_read).toEqual([
      'https://www.googleapis.com/auth/analytics.readonly',
    ])
    expect(definition.auth.scopes.analytics_property_write).toEqual([
      'https://www.googleapis.com/auth/analytics.edit',
    ])
    const fields = definition.auth.fields.map((f) => `${f.name}:${f.secret ? 'secret' : 'shown'}`)
    expect(fields).toEqual([
      'access_token:secret',
      'refresh_token:secret',
      'client_id:shown',
      'client_secret:secret',
      'api_url:shown',
      'measurement_id:shown',
      'api_secret:secret',
      'region:shown',
    ])
  })
})

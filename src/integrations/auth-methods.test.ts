import { describe, expect, it } from 'vitest'
import { apiKeyOf, authFieldsOf, authKindsOf, missingAuthFields, oauthOf } from './auth-methods.js'
import ga4 from './ga4/definition.js'
import posthog from './posthog/definition.js'
import umami from './umami/definition.js'

describe('auth methods of a definition', () => {
  it('find OAuth as the only method (GA4), as the alternative (PostHog), or not at all (Umami)', () => {
    expect(oauthOf(ga4)?.kind).toBe('oauth2')
    expect(apiKeyOf(ga4)).toBeUndefined()
    expect(oauthOf(posthog)?.tokenUrl).toBe('https://us.posthog.com/oauth/token/')
    expect(apiKeyOf(posthog)?.fields.map((f) => f.name)).toEqual(['token', 'region', 'api_url'])
    expect(oauthOf(umami)).toBeUndefined()
    expect([authKindsOf(ga4), authKindsOf(posthog), authKindsOf(umami)]).toEqual([
      'oauth2',
      'api_key, oauth2',
      'api_key',
    ])
  })

  it('list every field once, the primary method first', () => {
    expect(authFieldsOf(posthog).map((f) => f.name)).toEqual([
      'token',
      'region',
      'api_url',
      'access_token',
      'refresh_token',
      'client_id',
      'client_secret',
    ])
  })

  it('accept credentials that satisfy either method, and name the missing fields of the one they lean to', () => {
    expect(missingAuthFields(posthog, { token: 'phx_1' })).toEqual([])
    expect(missingAuthFields(posthog, { access_token: 'pha_1' })).toEqual([])
    expect(missingAuthFields(posthog, { api_url: 'http://x' }).map((f) => f.name)).toEqual(['token'])
    expect(missingAuthFields(posthog, { refresh_token: 'phr_1' }).map((f) => f.name)).toEqual([
      'access_token',
    ])
  })
})

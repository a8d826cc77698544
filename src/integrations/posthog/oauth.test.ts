import { describe, expect, it } from 'vitest'
import { providerScopes } from '../../authorization/scopes.js'
import { grantedPermissions } from '../../authorization/tokens/token-set.js'
import { INTEGRATIONS } from '../registry.js'
import { integrationPermissions } from '../support.js'
import posthog from './definition.js'
import { POSTHOG_SCOPES } from './oauth.js'

describe('PostHog OAuth scopes', () => {
  it('asks for no hog function scope to read events; the webhook permission asks for both', () => {
    expect(providerScopes(['analytics_event_read'], POSTHOG_SCOPES)).toEqual(['query:read'])
    expect(providerScopes(['webhook'], POSTHOG_SCOPES)).toEqual(['hog_function:read', 'hog_function:write'])
    const nonWebhook = Object.entries(POSTHOG_SCOPES).filter(([p]) => p !== 'webhook')
    expect(nonWebhook.flatMap(([, scopes]) => scopes).filter((s) => s.startsWith('hog_function'))).toEqual([])
  })

  it('maps every permission a PostHog connection can hold', () => {
    expect(Object.keys(POSTHOG_SCOPES).sort()).toEqual(integrationPermissions(posthog).sort())
  })

  it('keeps event reads but not webhook when the user unticks the hog function scopes', () => {
    const requested = ['analytics_event_read', 'webhook']
    expect(grantedPermissions(requested, POSTHOG_SCOPES, 'openid user:read query:read')).toEqual([
      'analytics_event_read',
    ])
  })
})

describe('the webhook permission', () => {
  it('is offered exactly by integrations with native webhooks, once', () => {
    for (const integration of INTEGRATIONS) {
      const pushes = Object.values(integration.objects).some((h) => h?.nativeWebhooks)
      const permissions = integrationPermissions(integration)
      expect(
        permissions.filter((p) => p === 'webhook'),
        integration.type,
      ).toHaveLength(pushes ? 1 : 0)
    }
    expect(integrationPermissions(posthog)).toContain('webhook')
  })
})

import { describe, expect, it } from 'vitest'
import { type HubspotEmulator, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { type AuthServer, browserGet, useOAuthSuite } from './support/auth-server.js'

const APP = 'https://app.example.com'

describe('HubSpot OAuth (emulated HubSpot)', () => {
  let s: AuthServer
  let hs: HubspotEmulator
  useOAuthSuite({
    store: 'sqlite',
    app: APP,
    start: () => startHubspotEmulator({ seed: 2, contacts: 5 }),
    configure: async (server, provider) => {
      provider.registerClient({
        clientId: 'hs-client',
        clientSecret: 'hs-secret',
        redirectUris: [`${server.url}/unified/integration/oauth/callback`],
      })
      const app = await server.api('PUT', '/unified/workspace/oauth_app/hubspot', {
        client_id: 'hs-client',
        client_secret: 'hs-secret',
        authorize_url: `${provider.url}/oauth/authorize`,
        token_url: `${provider.url}/oauth/v1/token`,
        api_url: provider.url,
      })
      expect(app.status).toBe(200)
    },
    ready: (server, provider) => {
      s = server
      hs = provider
    },
  })

  it('asks for the contact scopes of the permissions, without PKCE, and connects on consent', async () => {
    const params = new URLSearchParams({
      success_redirect: `${APP}/ok`,
      failure_redirect: `${APP}/failed`,
      scopes: 'crm_contact_read',
    })
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/hubspot?${params}`)
    expect(start.status).toBe(200)
    const authorize = new URL(start.text)
    expect(authorize.origin + authorize.pathname).toBe(`${hs.url}/oauth/authorize`)
    expect(authorize.searchParams.get('scope')).toBe('oauth crm.objects.contacts.read')
    expect(authorize.searchParams.get('code_challenge')).toBeNull()
    const consent = await browserGet(authorize.toString())
    expect(consent.status).toBe(302)
    const done = await browserGet(consent.location!)
    expect(done.status).toBe(303)
    const back = new URL(done.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/ok`)
    const id = back.searchParams.get('id')!
    const stored = (await s.services.connectionStore.get(s.workspaceId, id))!.credentials
    expect(stored.refresh_token).toMatch(/^na1-/)
    expect(stored.token).toBeUndefined()
    const contacts = await s.api<unknown[]>('GET', `/crm/${id}/contact?limit=2`)
    expect(contacts.status).toBe(200)
    expect(contacts.body).toHaveLength(2)
    // Granted only reads: HubSpot refuses the write scope it was not given, and Unigate before it.
    const write = await s.api('POST', `/crm/${id}/contact`, { first_name: 'No' })
    expect(write.status).toBe(403)
  })
})

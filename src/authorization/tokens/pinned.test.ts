import { describe, expect, it } from 'vitest'
import type { OAuth2Auth } from '../../integrations/types.js'
import type { OAuthApp } from '../oauth-apps.js'
import { oauthClientFor, pinnedAddresses } from './pinned.js'

const spec: OAuth2Auth = {
  kind: 'oauth2',
  fields: [],
  authorizeUrl: 'https://accounts.example.com/authorize',
  tokenUrl: 'https://accounts.example.com/token',
  revokeUrl: 'https://accounts.example.com/revoke',
  scopes: {},
  pkce: false,
}

const app = (secret: string, token: string): OAuthApp => ({
  workspaceId: 'ws_1',
  integrationType: 'googleanalytics',
  clientId: 'client-1',
  clientSecret: secret,
  endpoints: { token_url: token, revoke_url: token.replace('/token', '/revoke') },
})

const real = 'https://accounts.example.com/token'
const elsewhere = 'https://elsewhere.example.net/token'

describe('oauthClientFor: the app secret goes only where it was given', () => {
  it('sends it to the address the app names now, whichever secret the connection was pinned with', () => {
    const pinned = { client_id: 'client-1', ...pinnedAddresses(spec, app('old', real)) }
    expect(oauthClientFor(pinned, spec, app('rotated', real), 'token')).toEqual({
      clientId: 'client-1',
      clientSecret: 'rotated',
    })
  })

  it('sends it to an address pinned earlier when the app held the same secret then', () => {
    const pinned = { client_id: 'client-1', ...pinnedAddresses(spec, app('same', real)) }
    expect(oauthClientFor(pinned, spec, app('same', elsewhere), 'token')?.clientSecret).toBe('same')
    expect(oauthClientFor(pinned, spec, app('same', elsewhere), 'revoke')?.clientSecret).toBe('same')
  })

  it('keeps it from an address pinned with another secret, and from one pinned before fingerprints', () => {
    const hijacked = { client_id: 'client-1', ...pinnedAddresses(spec, app('made-up', elsewhere)) }
    expect(oauthClientFor(hijacked, spec, app('real', real), 'token')).toEqual({ clientId: 'client-1' })
    // Pinned before the fingerprint was kept: only the address counts.
    const legacy = { client_id: 'client-1', token_url: elsewhere }
    expect(oauthClientFor(legacy, spec, app('real', real), 'token')).toEqual({ clientId: 'client-1' })
    expect(oauthClientFor(legacy, spec, app('real', elsewhere), 'token')?.clientSecret).toBe('real')
  })

  it("uses a connection's own client as it is, and the app's for a connection without one", () => {
    const own = { client_id: 'other', client_secret: 'own', token_url: elsewhere }
    expect(oauthClientFor(own, spec, app('real', real), 'token')).toEqual({
      clientId: 'other',
      clientSecret: 'own',
    })
    expect(oauthClientFor({}, spec, app('real', real), 'token')).toEqual({
      clientId: 'client-1',
      clientSecret: 'real',
    })
    expect(oauthClientFor({}, spec, undefined, 'token')).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { type LeverEmulator, startLeverEmulator } from '../emulators/lever/index.js'
import { type AuthServer, browserGet, browserPost, useOAuthSuite } from './support/auth-server.js'

const APP = 'http://localhost'
const CLIENT_ID = 'unigate-lever-app'
const CLIENT_SECRET = 'unigate-lever-secret'

/** A Lever connection made through the authorization flow against the emulated auth.lever.co, then kept alive. */
describe('Lever OAuth end to end', () => {
  let s: AuthServer
  let lever: LeverEmulator

  useOAuthSuite({
    store: 'sqlite',
    app: APP,
    start: () => startLeverEmulator({ seed: 2, contacts: 10 }),
    configure: async (server, provider) => {
      provider.oauth.registerClient(CLIENT_ID, CLIENT_SECRET, [
        `${server.url}/unified/integration/oauth/callback`,
      ])
      const app = await server.api('PUT', '/unified/workspace/oauth_app/lever', {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        authorize_url: `${provider.url}/authorize`,
        token_url: `${provider.url}/oauth/token`,
        api_url: `${provider.url}/v1`,
      })
      expect(app.status).toBe(200)
    },
    ready: (server, provider) => {
      s = server
      lever = provider
    },
  })

  it('authorizes with the audience, connects on consent, reads with the bearer, refreshes when it expires', async () => {
    const params = new URLSearchParams({ success_redirect: `${APP}/ok`, failure_redirect: `${APP}/failed` })
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/lever?${params}`)
    expect(start.status).toBe(200)
    const authorize = new URL(start.text)
    expect(authorize.searchParams.get('audience')).toBe('https://api.lever.co/v1/')
    expect(authorize.searchParams.get('scope')?.split(' ')).toContain('offline_access')
    expect((await browserGet(authorize.toString())).status).toBe(200)
    const decided = await browserPost(`${lever.url}/authorize`, {
      ...Object.fromEntries(authorize.searchParams),
      decision: 'allow',
    })
    expect(decided.status).toBe(302)
    const done = await browserGet(decided.location as string)
    expect(done.status).toBe(303)
    const id = new URL(done.location as string).searchParams.get('id') as string
    expect(id).toMatch(/^cn_/)

    const read = async () => s.api<unknown[]>('GET', `/ats/${id}/application?limit=3`)
    const first = await read()
    expect(first.status).toBe(200)
    expect(first.body).toHaveLength(3)
    const bearer = lever.requests().find((r) => r.path === '/v1/opportunities' && r.query.limit === '3')
    expect(String(bearer?.headers.authorization)).toMatch(/^Bearer lever_at_/)

    // An hour later the access token is dead: Unigate refreshes once and reads on, with a rotated refresh token.
    lever.oauth.expireAccessTokens()
    const refreshesBefore = lever.oauth.tokenRequests.filter((g) => g === 'refresh_token').length
    const again = await read()
    expect(again.status).toBe(200)
    expect(lever.oauth.tokenRequests.filter((g) => g === 'refresh_token').length).toBe(refreshesBefore + 1)
    expect(lever.oauth.refreshTokens.size).toBe(1)
  })

  it('the grant asked reaches every endpoint Unigate calls: webhooks listed, confidential opportunities read', async () => {
    const params = new URLSearchParams({ success_redirect: `${APP}/ok`, failure_redirect: `${APP}/failed` })
    const authorize = new URL(
      (await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/lever?${params}`)).text,
    )
    const decided = await browserPost(`${lever.url}/authorize`, {
      ...Object.fromEntries(authorize.searchParams),
      decision: 'allow',
    })
    const done = await browserGet(decided.location as string)
    const id = new URL(done.location as string).searchParams.get('id') as string
    expect(id).toMatch(/^cn_/)
    // The list native webhooks read to check a subscription and to find one made without an answer.
    const listed = await s.api<Record<string, unknown>>('GET', `/passthrough/${id}/webhooks`)
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    expect(listed.body).toMatchObject({ data: [] })
    // Every opportunity, confidential ones too, with the stages, archive reasons and offers that map them.
    const all = lever.state.ordered()
    expect(all.some((o) => o.confidentiality === 'confidential')).toBe(true)
    const read = await s.api<{ id: string }[]>('GET', `/ats/${id}/application?limit=100&fields=id,offers`)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(read.body.map((a) => a.id).sort()).toEqual(all.map((o) => o.id).sort())
  })

  it('a consent the user declines goes to the failure redirect', async () => {
    const params = new URLSearchParams({ success_redirect: `${APP}/ok`, failure_redirect: `${APP}/failed` })
    const authorize = new URL(
      (await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/lever?${params}`)).text,
    )
    const decided = await browserPost(`${lever.url}/authorize`, {
      ...Object.fromEntries(authorize.searchParams),
      decision: 'deny',
    })
    const done = await browserGet(decided.location as string)
    expect(String(done.location)).toMatch(/^http:\/\/localhost\/failed/)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { type AuthServer, browserGet, startAuthServer } from './support/auth-server.js'
import {
  CLIENT_ID,
  CLIENT_SECRET,
  configureGoogleApp,
  decide,
  GA4,
  type GoogleSetup,
  startGoogle,
} from './support/google-oauth.js'
import { startPosthog } from './support/posthog.js'
import { type Recorder, startRecorder } from './support/recorder.js'
import { storeKinds } from './support/stores.js'

type Body = { message: string; id: string; auth?: Record<string, unknown> }

const GA4_READONLY = 'https://www.googleapis.com/auth/analytics.readonly'

describe.each(storeKinds())('a stored secret goes only where it was verified, on %s', (store) => {
  let s: AuthServer
  let posthog: PosthogEmulator
  let otherPosthog: PosthogEmulator
  let g: GoogleSetup
  let elsewhere: Recorder
  beforeAll(async () => {
    posthog = await startPosthog()
    otherPosthog = await startPosthog(8)
    g = await startGoogle()
    elsewhere = await startRecorder()
    s = await startAuthServer(store)
    await configureGoogleApp(s, g)
  })
  afterAll(async () => {
    await s?.close()
    await Promise.all([posthog?.close(), otherPosthog?.close(), g?.close(), elsewhere?.close()])
  })

  async function connectPosthog(): Promise<string> {
    const res = await s.api<Body>('POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url },
    })
    expect(res.status).toBe(200)
    return res.body.id
  }

  it('refuses to move a connection to another address without the secret, sending it nowhere', async () => {
    const id = await connectPosthog()
    elsewhere.requests.length = 0
    for (const method of ['PATCH', 'PUT']) {
      const moved = await s.api<Body>(method, `/unified/connection/${id}`, {
        auth: { api_url: elsewhere.url },
      })
      expect(moved.status, method).toBe(400)
      expect(moved.body.message).toContain('auth.api_url')
      expect(moved.body.message).toContain('auth.token')
    }
    // A region is an address too (it picks PostHog's US or EU cloud).
    const region = await s.api<Body>('PATCH', `/unified/connection/${id}`, {
      auth: { meta: { region: 'eu' } },
    })
    expect(region.status).toBe(400)
    expect(region.body.message).toContain('auth.token')
    expect(elsewhere.requests).toEqual([])
    const view = await s.api<Body>('GET', `/unified/connection/${id}`)
    expect(view.body.auth).toMatchObject({ api_url: posthog.url })
  })

  it('moves a connection when the secret comes along, verifying it at the new address', async () => {
    const id = await connectPosthog()
    otherPosthog.clearRequests()
    const moved = await s.api<Body>('PATCH', `/unified/connection/${id}`, {
      auth: { api_url: otherPosthog.url, token: DEFAULT_PERSONAL_API_KEY },
    })
    expect(moved.status).toBe(200)
    expect(moved.body.auth).toMatchObject({ api_url: otherPosthog.url })
    const verified = otherPosthog.requests().find((r) => r.path === '/api/users/@me/')
    expect(verified?.headers.authorization).toBe(`Bearer ${DEFAULT_PERSONAL_API_KEY}`)
    // Changing what is not an address needs no secret.
    const renamed = await s.api<Body>('PATCH', `/unified/connection/${id}`, { external_xref: 'renamed' })
    expect(renamed.status).toBe(200)
  })

  it('answers 400 naming the field for an address that is not a URL or is refused, before any request', async () => {
    for (const [type, auth] of [
      ['posthog', { token: DEFAULT_PERSONAL_API_KEY, api_url: 'not a url' }],
      ['matomo', { token_auth: 'a'.repeat(32), api_url: 'not a url' }],
      ['plausible', { api_key: 'k', api_url: 'http://169.254.169.254/latest' }],
      ['fathom', { api_key: 'k', api_url: 'file:///etc/passwd' }],
    ] as const) {
      const res = await s.api<Body>('POST', '/unified/connection', { integration_type: type, auth })
      expect(res.status, type).toBe(400)
      expect(res.body.message, type).toContain('auth.api_url')
    }
    const id = await connectPosthog()
    const res = await s.api<Body>('PATCH', `/unified/connection/${id}`, {
      auth: { api_url: 'http://[::ffff:169.254.169.254]/', token: DEFAULT_PERSONAL_API_KEY },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toContain('auth.api_url')
  })

  it("validates an OAuth app's addresses: nothing internal, and an https authorize_url", async () => {
    const put = (body: Record<string, string>) =>
      s.api<Body>('PUT', '/unified/workspace/oauth_app/posthog', {
        client_id: 'c',
        client_secret: 'cs',
        ...body,
      })
    for (const [field, value] of [
      ['token_url', 'http://169.254.169.254/latest/meta-data/'],
      ['revoke_url', 'http://10.0.0.8/revoke'],
      ['api_url', 'not a url'],
      ['token_url', 'gopher://example.com/'],
      ['authorize_url', 'http://evil.example.net/phish'],
      ['authorize_url', 'javascript:alert(1)'],
    ] as const) {
      const res = await put({ [field]: value })
      expect(res.status, `${field}=${value}`).toBe(400)
      expect(res.body.message, `${field}=${value}`).toContain(field)
    }
    // An address the operator allows (the tests allow loopback) may use http, as the emulators do.
    expect((await put({ authorize_url: `${posthog.url}/oauth/authorize/` })).status).toBe(200)
    expect((await put({ authorize_url: 'https://eu.posthog.com/oauth/authorize/' })).status).toBe(200)
    expect((await s.api('DELETE', '/unified/workspace/oauth_app/posthog')).status).toBe(200)
  })

  it("keeps refreshing and revoking an OAuth connection where it was authorized when the app's addresses change", async () => {
    // Authorized through the flow with the emulated Google.
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${GA4}`)
    const done = await browserGet(await decide(start.text, 'allow'))
    expect(done.status).toBe(200)
    const id = /cn_na_[A-Za-z0-9_-]+/.exec(done.text)?.[0]
    expect(id).toBeDefined()
    const before = await s.services.connectionStore.get(s.workspaceId, id!)

    // The workspace's app now names another token and revoke address.
    const changed = await s.api('PUT', `/unified/workspace/oauth_app/${GA4}`, {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      authorize_url: g.accounts.authorizeUrl,
      token_url: `${elsewhere.url}/token`,
      revoke_url: `${elsewhere.url}/revoke`,
      api_url: g.ga4.url,
    })
    expect(changed.status).toBe(200)
    elsewhere.requests.length = 0
    g.ga4.clearRequests()

    // The access token dies at Google: the refresh goes to the address the connection was authorized with.
    g.ga4.authority.advance(3600)
    const read = await s.api('GET', `/analytics/${id}/property`)
    expect(read.status).toBe(200)
    const refreshes = g.ga4.requests().filter((r) => r.path === '/token')
    expect(refreshes).toHaveLength(1)
    expect(refreshes[0]?.body).toMatchObject({ refresh_token: before!.credentials.refresh_token })
    expect((await s.api('DELETE', `/unified/connection/${id}`)).status).toBe(200)
    expect(g.ga4.requests().filter((r) => r.path === '/revoke')).toHaveLength(1)
    expect(elsewhere.requests).toEqual([])

    // Connections authorized after the change use the new addresses.
    const next = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${GA4}`)
    const failed = await browserGet(await decide(next.text, 'allow'))
    expect(failed.text).toContain('did not issue a token')
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/token'])
    await configureGoogleApp(s, g)
  })

  it("never sends the app's secret to a token address the app named with another secret", async () => {
    // A key holder points the app at an address of their own, with a made-up secret (they do not know the
    // real one), and stores tokens as a connection meanwhile: that connection is pinned to their address.
    const hijacked = await s.api('PUT', `/unified/workspace/oauth_app/${GA4}`, {
      client_id: CLIENT_ID,
      client_secret: 'made-up',
      authorize_url: g.accounts.authorizeUrl,
      token_url: `${elsewhere.url}/token`,
      revoke_url: `${elsewhere.url}/revoke`,
      api_url: g.ga4.url,
    })
    expect(hijacked.status).toBe(200)
    const tokens = g.ga4.authority.issueTokens({ clientId: CLIENT_ID, scopes: [GA4_READONLY] })
    const created = await s.api<Body>('POST', '/unified/connection', {
      integration_type: GA4,
      auth: { access_token: tokens.access_token, refresh_token: tokens.refresh_token, api_url: g.ga4.url },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.auth?.token_url).toBe(`${elsewhere.url}/token`)
    expect(JSON.stringify(created.body)).not.toMatch(/app_secret/)

    // The operator puts the real app back; the hijacked connection's token dies.
    await configureGoogleApp(s, g)
    elsewhere.requests.length = 0
    g.ga4.authority.advance(3600)
    const read = await s.api('GET', `/analytics/${created.body.id}/property`)
    expect(read.status).not.toBe(200)
    // Its refresh went where it was pinned, without the secret the app was given with another address.
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/token'])
    const sent = JSON.stringify(elsewhere.requests)
    expect(sent).not.toContain(CLIENT_SECRET)
    expect(sent).not.toContain(Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'))
    expect(sent).toContain(CLIENT_ID)
  })

  it("does not show the browser what the app's API address answered when the new token fails verification", async () => {
    const internal = await startRecorder({ status: 500, body: 'internal-answer: db password hunter2' })
    try {
      const put = await s.api('PUT', `/unified/workspace/oauth_app/${GA4}`, {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        authorize_url: g.accounts.authorizeUrl,
        token_url: `${g.ga4.url}/token`,
        api_url: internal.url,
      })
      expect(put.status).toBe(200)
      const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${GA4}`)
      const page = await browserGet(await decide(start.text, 'allow'))
      expect(internal.requests.length).toBeGreaterThan(0)
      expect(page.text).toContain('could not verify the new token (HTTP 500)')
      expect(page.text).not.toContain('internal-answer')
      expect(page.text).not.toContain('hunter2')
    } finally {
      await internal.close()
      await configureGoogleApp(s, g)
    }
  })
})

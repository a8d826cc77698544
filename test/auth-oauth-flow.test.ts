import { describe, expect, it } from 'vitest'
import { verifyRedirectSig } from '../src/authorization/index.js'
import { type AuthServer, browserGet, startAuthorization, useOAuthSuite } from './support/auth-server.js'
import {
  CLIENT_ID,
  CLIENT_SECRET,
  configureGoogleApp,
  decide,
  GA4,
  type GoogleSetup,
  startGoogle,
} from './support/google-oauth.js'
import { startLocalServer } from './support/local-server.js'
import { storeKinds } from './support/stores.js'

const APP = 'https://app.example.com'
const READONLY = 'https://www.googleapis.com/auth/analytics.readonly'

describe.each(storeKinds())('OAuth authorization (GA4, emulated Google) on %s', (store) => {
  let s: AuthServer
  let g: GoogleSetup
  useOAuthSuite({
    store,
    app: APP,
    start: startGoogle,
    configure: configureGoogleApp,
    ready: (server, google) => {
      s = server
      g = google
    },
  })

  const authorizeUrl = (query: Record<string, string> = {}) => startAuthorization(s, GA4, APP, query)

  const connectionCount = async () => (await s.api<unknown[]>('GET', '/unified/connection')).body.length

  it('sends the user to the provider with mapped scopes, PKCE, offline access and a state', async () => {
    const url = await authorizeUrl({ scopes: 'analytics_report_read' })
    expect(url.origin + url.pathname).toBe(g.accounts.authorizeUrl)
    const p = Object.fromEntries(url.searchParams)
    expect(p).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${s.url}/unified/integration/oauth/callback`,
      scope: READONLY,
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
    })
    expect(p.state).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.state).not.toBe('their-state')
  })

  it('creates a verified connection on consent, redirects with a valid sig, and reads data at once', async () => {
    const url = await authorizeUrl({ external_xref: 'cust-1' })
    const callback = await decide(url.toString(), 'allow')
    expect(callback.startsWith(`${s.url}/unified/integration/oauth/callback?`)).toBe(true)
    const done = await browserGet(callback)
    expect(done.status).toBe(303)
    const back = new URL(done.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/ok`)
    const q = Object.fromEntries(back.searchParams)
    expect(q).toMatchObject({ state: 'their-state', type: GA4 })
    expect(
      verifyRedirectSig(s.secret, { id: q.id!, state: q.state!, nonce: q.nonce!, type: q.type! }, q.sig!),
    ).toBe(true)
    expect(
      verifyRedirectSig(s.secret, { id: q.id!, state: q.state!, nonce: q.nonce!, type: 'posthog' }, q.sig!),
    ).toBe(false)

    const conn = await s.api<Record<string, unknown>>('GET', `/unified/connection/${q.id}`)
    expect(conn.body).toMatchObject({ integration_type: GA4, external_xref: 'cust-1' })
    const shown = JSON.stringify(conn.body)
    const stored = await s.services.connectionStore.get(s.workspaceId, q.id!)
    expect(stored?.credentials.access_token).toMatch(/^ya29\./)
    expect(stored?.credentials.refresh_token).toBeTruthy()
    expect(shown).not.toContain(stored!.credentials.access_token!)
    expect(shown).not.toContain(stored!.credentials.refresh_token!)
    // The token sits sealed in the database.
    const row = await s.services.db
      .selectFrom('connections')
      .select('auth_sealed')
      .where('id', '=', q.id!)
      .executeTakeFirst()
    expect(row?.auth_sealed).not.toContain(stored!.credentials.access_token!)

    const properties = await s.api<unknown[]>('GET', `/analytics/${q.id}/property`)
    expect(properties.status).toBe(200)
    expect(properties.body.length).toBeGreaterThan(0)
  })

  it('refuses a replayed callback: the state is spent, nothing more is created', async () => {
    const callback = await decide((await authorizeUrl()).toString(), 'allow')
    expect((await browserGet(callback)).status).toBe(303)
    const count = await connectionCount()
    const replay = await browserGet(callback)
    expect(replay.status).toBe(303)
    const back = new URL(replay.location!)
    expect(back.pathname).toBe('/failed')
    expect(back.searchParams.get('error_code')).toBe('state_used')
    expect(await connectionCount()).toBe(count)
  })

  it('sends a denied consent to the failure redirect with access_denied', async () => {
    const count = await connectionCount()
    const callback = await decide((await authorizeUrl()).toString(), 'deny')
    const res = await browserGet(callback)
    const back = new URL(res.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/failed`)
    expect(back.searchParams.get('error_code')).toBe('access_denied')
    expect(back.searchParams.get('error')).toMatch(/declined/)
    expect(back.searchParams.get('state')).toBe('their-state')
    expect(await connectionCount()).toBe(count)
  })

  it('reports a code the provider refuses (invalid_grant) and creates nothing', async () => {
    const url = await authorizeUrl()
    const count = await connectionCount()
    const res = await browserGet(
      `${s.url}/unified/integration/oauth/callback?state=${url.searchParams.get('state')}&code=4%2F0Abogus`,
    )
    const back = new URL(res.location!)
    expect(back.searchParams.get('error_code')).toBe('token_exchange_failed')
    expect(back.searchParams.get('error')).toContain('invalid_grant')
    expect(await connectionCount()).toBe(count)
  })

  it("never shows the browser what the workspace's token endpoint said, only a registered code and the status", async () => {
    // The OAuth app's token_url is the workspace's to set, and may be an internal address where the operator
    // allows them: the callback page is open to anyone, so its words must not come back through it.
    const internal = await startLocalServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'db_password=hunter2', error_description: 'internal: 12 users' }))
    })
    try {
      const put = await s.api('PUT', `/unified/workspace/oauth_app/${GA4}`, {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        authorize_url: g.accounts.authorizeUrl,
        token_url: `${internal.url}/token`,
        api_url: g.ga4.url,
      })
      expect(put.status).toBe(200)
      const callback = await decide((await authorizeUrl()).toString(), 'allow')
      const back = new URL((await browserGet(callback)).location!)
      expect(back.searchParams.get('error_code')).toBe('token_exchange_failed')
      expect(back.searchParams.get('error')).toBe(
        'Google Analytics 4 refused to issue a token for the authorization code (HTTP 400).',
      )
      expect(back.toString()).not.toMatch(/hunter2|12%20users|12\+users/)
      expect(internal.seen).toHaveLength(1)
    } finally {
      await internal.close()
      await configureGoogleApp(s, g)
    }
  })

  it('refuses a forged or missing state without calling the provider', async () => {
    g.ga4.clearRequests()
    for (const state of ['A'.repeat(43), 'short', '']) {
      const res = await browserGet(`${s.url}/unified/integration/oauth/callback?state=${state}&code=abc`)
      expect(res.status).toBe(400)
      expect(res.location).toBeUndefined()
    }
    expect(g.ga4.requests().filter((r) => r.path === '/token')).toEqual([])
  })

  it('binds the state to the workspace that issued it: the connection lands there and only there', async () => {
    const { workspace } = await s.services.workspaces.create('second')
    await s.services.workspaces.update(workspace.id, { allowed_redirect_origins: [APP] })
    const app = await s.services.authorization.oauthApps.get(s.workspaceId, GA4)
    await s.services.authorization.oauthApps.put({ ...app!, workspaceId: workspace.id })
    const res = await browserGet(
      `${s.url}/unified/integration/auth/${workspace.id}/${GA4}?success_redirect=${encodeURIComponent(`${APP}/ok`)}`,
    )
    const done = await browserGet(await decide(res.text, 'allow'))
    const id = new URL(done.location!).searchParams.get('id')!
    expect(await s.services.connectionStore.get(workspace.id, id)).toBeDefined()
    expect((await s.api('GET', `/unified/connection/${id}`)).status).toBe(404)
  })

  it('answers 400 when the workspace has no OAuth app for the integration', async () => {
    await s.api('DELETE', `/unified/workspace/oauth_app/${GA4}`)
    const res = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${GA4}`)
    expect(res.status).toBe(400)
    expect(res.text).toContain('OAuth app')
    await configureGoogleApp(s, g)
  })
})

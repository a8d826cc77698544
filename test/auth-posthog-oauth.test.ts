import { request } from 'undici'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { RefreshLock, verifyRedirectSig } from '../src/authorization/index.js'
import { TokenClient } from '../src/authorization/tokens/token-client.js'
import { integrationOf } from '../src/integrations/registry.js'
import {
  type AuthServer,
  browserGet,
  browserPost,
  startAuthorization,
  useOAuthSuite,
} from './support/auth-server.js'
import { TEST_AUTHORIZATION } from './support/config.js'
import {
  configurePosthogApp,
  decideAtPosthog,
  PH_CLIENT_ID,
  PH_CLIENT_SECRET,
  startPosthogForOAuth,
} from './support/posthog-oauth.js'
import { startRecorder } from './support/recorder.js'
import { storeKinds } from './support/stores.js'

const APP = 'https://app.example.com'
const ALL_SCOPES = ['user:read', 'query:read', 'project:read', 'person:read', 'person:write']

async function postForm(url: string, form: Record<string, string>) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, string> }
}

describe.each(storeKinds())('PostHog OAuth (emulated PostHog) on %s', (store) => {
  let s: AuthServer
  let ph: PosthogEmulator
  useOAuthSuite({
    store,
    app: APP,
    start: startPosthogForOAuth,
    configure: configurePosthogApp,
    // A PATCH waits this long for a refresh that holds the connection before answering 503.
    overrides: { authorization: { ...TEST_AUTHORIZATION, refreshWaitMs: 1_000 } },
    ready: (server, posthog) => {
      s = server
      ph = posthog
    },
  })

  const authorizeUrl = (query: Record<string, string> = {}) => startAuthorization(s, 'posthog', APP, query)

  /** A PostHog connection holding tokens the emulator issued, expiring (for Unigate) in `expiresInSec`. */
  async function connectWithTokens(expiresInSec: number) {
    const tokens = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const integration = integrationOf('posthog')!
    const credentials = {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      client_id: PH_CLIENT_ID,
      api_url: ph.url,
      expiry_date: new Date(Date.now() + expiresInSec * 1000).toISOString(),
    }
    // What the flow would have learned (the current project), asked of PostHog with the token itself.
    const settings = await s.services.connections.verify(s.workspaceId, integration, credentials)
    const connection = await s.services.connections.insertVerified(s.workspaceId, {
      integration,
      credentials,
      settings,
      permissions: ['analytics_property_read', 'analytics_report_read', 'analytics_visitor_read'],
      environment: 'Production',
    })
    return { connection, tokens }
  }

  const tokenRequests = () => ph.requests().filter((r) => r.method === 'POST' && r.path === '/oauth/token/')
  const visitors = (id: string) => s.api<unknown[]>('GET', `/analytics/${id}/visitor?limit=5`)
  const stored = async (id: string) => (await s.services.connectionStore.get(s.workspaceId, id))!.credentials

  it('sends the user to PostHog with its scopes, PKCE and a state', async () => {
    const url = await authorizeUrl({ scopes: 'analytics_report_read' })
    expect(url.origin + url.pathname).toBe(`${ph.url}/oauth/authorize/`)
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: PH_CLIENT_ID,
      redirect_uri: `${s.url}/unified/integration/oauth/callback`,
      scope: 'openid profile email user:read query:read',
      code_challenge_method: 'S256',
    })
    expect(url.searchParams.get('access_type')).toBeNull()
  })

  it('asks for the hog function (write) scopes only with the webhook permission, not for event reads', async () => {
    const read = await authorizeUrl({ scopes: 'analytics_event_read' })
    expect(read.searchParams.get('scope')).toBe('openid profile email user:read query:read')
    const pushed = await authorizeUrl({ scopes: 'analytics_event_read,webhook' })
    expect(pushed.searchParams.get('scope')).toBe(
      'openid profile email user:read query:read hog_function:read hog_function:write',
    )
  })

  it('creates a verified connection on consent, signs the redirect, and reads data at once', async () => {
    const callback = await decideAtPosthog(
      (await authorizeUrl({ external_xref: 'cust-ph' })).toString(),
      'allow',
    )
    expect(callback.startsWith(`${s.url}/unified/integration/oauth/callback?`)).toBe(true)
    const done = await browserGet(callback)
    expect(done.status).toBe(303)
    const back = new URL(done.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/ok`)
    const q = Object.fromEntries(back.searchParams)
    expect(q).toMatchObject({ state: 'their-state', type: 'posthog' })
    expect(
      verifyRedirectSig(s.secret, { id: q.id!, state: q.state!, nonce: q.nonce!, type: q.type! }, q.sig!),
    ).toBe(true)
    const credentials = await stored(q.id!)
    expect(credentials.access_token).toMatch(/^pha_/)
    expect(credentials.refresh_token).toMatch(/^phr_/)
    expect(credentials.token).toBeUndefined()
    const view = await s.api<Record<string, unknown>>('GET', `/unified/connection/${q.id}`)
    expect(view.body).toMatchObject({ integration_type: 'posthog', external_xref: 'cust-ph' })
    expect(JSON.stringify(view.body)).not.toContain(credentials.access_token!)
    ph.clearRequests()
    const properties = await s.api<unknown[]>('GET', `/analytics/${q.id}/property`)
    expect(properties.status).toBe(200)
    expect(properties.body.length).toBeGreaterThan(0)
    expect((await visitors(q.id!)).status).toBe(200)
    // The OAuth token went to PostHog, not a personal key.
    const sent = ph.requests().filter((r) => r.path.startsWith('/api/'))
    expect(sent.every((r) => r.headers.authorization === `Bearer ${credentials.access_token}`)).toBe(true)
  })

  it('sends a denied consent to the failure redirect with access_denied and creates nothing', async () => {
    const before = (await s.api<unknown[]>('GET', '/unified/connection')).body.length
    const res = await browserGet(await decideAtPosthog((await authorizeUrl()).toString(), 'deny'))
    const back = new URL(res.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/failed`)
    expect(back.searchParams.get('error_code')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('their-state')
    expect((await s.api<unknown[]>('GET', '/unified/connection')).body.length).toBe(before)
  })

  it("does not take an OAuth authorization's state on the key page, which would complete it with any key", async () => {
    // The state travels in the authorize URL (to PostHog, in the browser's address bar): on the key page it
    // created a connection from a key and address of the sender's choosing, signed for the user's own
    // `state` and `external_xref`, with no code, no PKCE and no consent.
    const url = await authorizeUrl({ external_xref: 'cust-key-page' })
    const state = url.searchParams.get('state')!
    const before = (await s.api<unknown[]>('GET', '/unified/connection')).body.length
    const shown = await browserGet(`${s.url}/unified/integration/key/${state}`)
    expect(shown.status).toBe(400)
    expect(shown.text).toContain('This authorization link is not valid')
    const posted = await browserPost(`${s.url}/unified/integration/key/${state}`, {
      token: DEFAULT_PERSONAL_API_KEY,
      api_url: ph.url,
    })
    expect(posted.status).toBe(400)
    expect(posted.location).toBeUndefined()
    expect((await s.api<unknown[]>('GET', '/unified/connection')).body.length).toBe(before)
    // Nor is the state spent: the user's consent completes the authorization.
    const done = await browserGet(await decideAtPosthog(url.toString(), 'allow'))
    expect(new URL(done.location!).searchParams.get('type')).toBe('posthog')
    expect(new URL(done.location!).pathname).toBe('/ok')
  })

  it('refreshes an expiring token, keeps the rotated refresh token, and the old one is refused', async () => {
    const { connection, tokens } = await connectWithTokens(30)
    ph.clearRequests()
    expect((await visitors(connection.id)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(1)
    const renewed = await stored(connection.id)
    expect(renewed.access_token).not.toBe(tokens.access_token)
    expect(renewed.refresh_token).toMatch(/^phr_/)
    expect(renewed.refresh_token).not.toBe(tokens.refresh_token)
    const reused = await postForm(`${ph.url}/oauth/token/`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: PH_CLIENT_ID,
      client_secret: PH_CLIENT_SECRET,
    })
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    // The connection keeps working on the new pair, without another refresh.
    ph.clearRequests()
    expect((await visitors(connection.id)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(0)
    expect(ph.oauth.refreshTokenLive(renewed.refresh_token!)).toBe(true)
  })

  it('pins tokens a PATCH gives a key connection where they were issued: a later app change never gets them', async () => {
    const created = await s.api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: ph.url },
      permissions: ['analytics_visitor_read'],
    })
    expect(created.status).toBe(200)
    const id = created.body.id
    expect((await stored(id)).token_url).toBeUndefined()
    const tokens = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const patched = await s.api('PATCH', `/unified/connection/${id}`, {
      auth: {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        client_id: PH_CLIENT_ID,
      },
    })
    expect(patched.status).toBe(200)
    expect(await stored(id)).toMatchObject({
      token_url: `${ph.url}/oauth/token/`,
      revoke_url: `${ph.url}/oauth/revoke/`,
    })
    // The workspace's app then names another token address: the expired token is still refreshed at PostHog.
    const elsewhere = await startRecorder()
    try {
      const moved = await s.api('PUT', '/unified/workspace/oauth_app/posthog', {
        client_id: PH_CLIENT_ID,
        client_secret: PH_CLIENT_SECRET,
        authorize_url: `${ph.url}/oauth/authorize/`,
        token_url: `${elsewhere.url}/oauth/token/`,
        api_url: ph.url,
      })
      expect(moved.status).toBe(200)
      ph.oauth.advance(3601)
      ph.clearRequests()
      expect((await visitors(id)).status).toBe(200)
      expect(tokenRequests()).toHaveLength(1)
      expect(elsewhere.requests).toEqual([])
    } finally {
      await elsewhere.close()
      await configurePosthogApp(s, ph)
    }
  })

  /**
   * Holds every connection verification after the provider has answered it, before the request that asked
   * writes anything: `verifying` settles once one is held, `release` lets it go on, `restore` undoes the hold.
   */
  function holdAfterVerifying() {
    const service = s.services.connections
    const verify = service.verify.bind(service)
    let entered!: () => void
    const verifying = new Promise<void>((resolve) => {
      entered = resolve
    })
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    service.verify = async (...args) => {
      const settings = await verify(...args)
      entered()
      await released
      return settings
    }
    return {
      verifying,
      release,
      restore: () => {
        release()
        service.verify = verify
      },
    }
  }

  it('keeps a refresh token rotated while a PATCH of the connection was verifying', async () => {
    // The SDK sends the connection's shown `auth` back on every PATCH, so changing only its external_xref
    // verifies the credentials with a provider call; a refresh meanwhile rotates the refresh token.
    const { connection, tokens } = await connectWithTokens(30)
    const { verifying, release, restore } = holdAfterVerifying()
    try {
      const patch = s.api('PATCH', `/unified/connection/${connection.id}`, {
        external_xref: 'moved-on',
        auth: { api_url: ph.url },
      })
      await verifying
      expect((await visitors(connection.id)).status).toBe(200)
      const rotated = (await stored(connection.id)).refresh_token
      expect(rotated).not.toBe(tokens.refresh_token)
      release()
      expect((await patch).status).toBe(200)
      const after = await stored(connection.id)
      expect(after.refresh_token).toBe(rotated)
      expect(ph.oauth.refreshTokenLive(after.refresh_token!)).toBe(true)
    } finally {
      restore()
    }
  })

  it('answers 404, not 500, to a PATCH of a connection removed while it was verifying', async () => {
    const { connection } = await connectWithTokens(3600)
    const { verifying, release, restore } = holdAfterVerifying()
    try {
      const patch = s.api('PATCH', `/unified/connection/${connection.id}`, { auth: { api_url: ph.url } })
      await verifying
      expect((await s.api('DELETE', `/unified/connection/${connection.id}`)).status).toBe(200)
      release()
      const answered = await patch
      expect(answered.status).toBe(404)
      expect(await s.services.connectionStore.get(s.workspaceId, connection.id)).toBeUndefined()
    } finally {
      restore()
    }
  })

  /**
   * Holds every token refresh after PostHog's token endpoint has answered it, before the refresher writes what
   * it got (it holds the connection's refresh lease meanwhile): `answered` settles once one is held, `release`
   * lets it write, `restore` undoes the hold.
   */
  function holdRefreshWrites() {
    const refresh = TokenClient.prototype.refresh
    let entered!: () => void
    const answered = new Promise<void>((resolve) => {
      entered = resolve
    })
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const spy = vi.spyOn(TokenClient.prototype, 'refresh').mockImplementation(async function (
      this: TokenClient,
      ...args
    ) {
      const tokens = await refresh.apply(this, args)
      entered()
      await released
      return tokens
    })
    return {
      answered,
      release,
      restore: () => {
        release()
        spy.mockRestore()
      },
    }
  }

  /** Settles once someone asks for the connection's refresh lease and is told to wait: another holds it. */
  function leaseRefused(connectionId: string) {
    const acquire = RefreshLock.prototype.acquire
    let seen!: () => void
    const refused = new Promise<void>((resolve) => {
      seen = resolve
    })
    const spy = vi.spyOn(RefreshLock.prototype, 'acquire').mockImplementation(async function (
      this: RefreshLock,
      ...args
    ) {
      const got = await acquire.apply(this, args)
      if (!got && args[0] === connectionId) seen()
      return got
    })
    return { refused, restore: () => spy.mockRestore() }
  }

  /**
   * A refresh that read the connection's credentials, then waits for its token answer (held here), while a
   * PATCH is sent; the hold ends once the PATCH has answered or waits for the refresh. Answers the PATCH's
   * answer, after the refresh finished.
   */
  async function patchDuringRefresh(connectionId: string, body: unknown) {
    const hold = holdRefreshWrites()
    const lease = leaseRefused(connectionId)
    try {
      const read = visitors(connectionId)
      await hold.answered
      const patch = s.api<Record<string, unknown>>('PATCH', `/unified/connection/${connectionId}`, body)
      await Promise.race([patch, lease.refused])
      hold.release()
      expect((await read).status).toBe(200)
      return await patch
    } finally {
      hold.restore()
      lease.restore()
    }
  }

  /** The bearer token the connection's next PostHog calls carry (none of them a token request). */
  async function nextCallsBearer(connectionId: string) {
    ph.clearRequests()
    expect((await visitors(connectionId)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(0)
    const sent = ph.requests().filter((r) => r.path.startsWith('/api/'))
    expect(sent.length).toBeGreaterThan(0)
    return [...new Set(sent.map((r) => r.headers.authorization))]
  }

  it('keeps the tokens a PATCH gave while a refresh was in flight, and calls PostHog with them', async () => {
    // The refresh read the old pair; written after the PATCH, what it built from them replaced the given pair,
    // though the PATCH had answered 200.
    const { connection, tokens } = await connectWithTokens(30)
    const given = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const patched = await patchDuringRefresh(connection.id, {
      auth: { access_token: given.access_token, refresh_token: given.refresh_token },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(JSON.stringify(patched.body)).not.toContain(given.access_token)
    expect(JSON.stringify(patched.body)).not.toContain(given.refresh_token)
    expect(await nextCallsBearer(connection.id)).toEqual([`Bearer ${given.access_token}`])
    // Once PostHog refuses the given access token, the given refresh token is the one spent.
    ph.oauth.advance(3601)
    ph.clearRequests()
    expect((await visitors(connection.id)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(1)
    expect(tokenRequests()[0]?.body).toMatchObject({ refresh_token: given.refresh_token })
    expect(tokenRequests()[0]?.body).not.toMatchObject({ refresh_token: tokens.refresh_token })
  })

  it('keeps both the access token a PATCH gave and the refresh token a refresh in flight rotated', async () => {
    const { connection, tokens } = await connectWithTokens(30)
    const given = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const patched = await patchDuringRefresh(connection.id, { auth: { access_token: given.access_token } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(await nextCallsBearer(connection.id)).toEqual([`Bearer ${given.access_token}`])
    // The PATCH gave no refresh token: the one PostHog rotated to is kept (the old one is dead).
    const rotated = (await stored(connection.id)).refresh_token!
    expect(rotated).not.toBe(tokens.refresh_token)
    expect(ph.oauth.refreshTokenLive(tokens.refresh_token)).toBe(false)
    expect(ph.oauth.refreshTokenLive(rotated)).toBe(true)
    ph.oauth.advance(3601)
    ph.clearRequests()
    expect((await visitors(connection.id)).status).toBe(200)
    expect(tokenRequests().map((r) => (r.body as Record<string, string>).refresh_token)).toEqual([rotated])
  })

  it('does not wait for a refresh in flight to PATCH what is not credentials', async () => {
    const { connection, tokens } = await connectWithTokens(30)
    const hold = holdRefreshWrites()
    try {
      const read = visitors(connection.id)
      await hold.answered
      const patched = await s.api('PATCH', `/unified/connection/${connection.id}`, {
        external_xref: 'cust-9',
      })
      expect(patched.status).toBe(200)
      hold.release()
      expect((await read).status).toBe(200)
    } finally {
      hold.restore()
    }
    const view = await s.api<Record<string, unknown>>('GET', `/unified/connection/${connection.id}`)
    expect(view.body.external_xref).toBe('cust-9')
    expect((await stored(connection.id)).refresh_token).not.toBe(tokens.refresh_token)
  })

  it('answers 503 and writes nothing when a refresh holds the connection longer than a PATCH waits', async () => {
    const { connection, tokens } = await connectWithTokens(3600)
    // Another process's refresh, still waiting for its token endpoint.
    const lock = new RefreshLock(s.services.db)
    expect(await lock.acquire(connection.id, 'another-process', 60_000)).toBe(true)
    const given = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const body = { external_xref: 'not-yet', auth: { access_token: given.access_token } }
    try {
      const refused = await request(`${s.url}/unified/connection/${connection.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const text = await refused.body.text()
      expect(refused.statusCode, text).toBe(503)
      expect(refused.headers['retry-after']).toBe('1')
      expect(JSON.parse(text).message).toBe(
        `connection ${connection.id} is having its access token refreshed, for longer than this request waits (UNIGATE_TOKEN_REFRESH_WAIT_SECONDS); nothing was changed: send the request again`,
      )
      expect(text).not.toContain(given.access_token)
      expect((await stored(connection.id)).access_token).toBe(tokens.access_token)
      const view = await s.api<Record<string, unknown>>('GET', `/unified/connection/${connection.id}`)
      expect(view.body.external_xref).toBeUndefined()
    } finally {
      await lock.release(connection.id, 'another-process')
    }
    // The refresh done, the same request goes through.
    expect((await s.api('PATCH', `/unified/connection/${connection.id}`, body)).status).toBe(200)
    expect(await nextCallsBearer(connection.id)).toEqual([`Bearer ${given.access_token}`])
  })

  it('refreshes once after PostHog answers 401 to an expired token, and rotates again', async () => {
    const { connection, tokens } = await connectWithTokens(3600)
    ph.oauth.advance(3601)
    ph.clearRequests()
    expect((await visitors(connection.id)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(1)
    expect((await stored(connection.id)).refresh_token).not.toBe(tokens.refresh_token)
    expect(ph.oauth.refreshTokenLive(tokens.refresh_token)).toBe(false)
  })

  it('marks the connection unhealthy on invalid_grant and answers 403 with a re-authorize hint, once', async () => {
    const { connection, tokens } = await connectWithTokens(-10)
    ph.oauth.revoke({ token: tokens.refresh_token, client_id: PH_CLIENT_ID, client_secret: PH_CLIENT_SECRET })
    ph.clearRequests()
    const res = await s.api<{ message: string }>('GET', `/analytics/${connection.id}/visitor`)
    expect(res.status).toBe(403)
    expect(res.body.message).toMatch(/PostHog.*invalid_grant.*re-authorize.*\/unified\/integration\/auth\//)
    const view = await s.api<Record<string, string>>('GET', `/unified/connection/${connection.id}`)
    expect(view.body.last_unhealthy_at).toBeTruthy()
    expect(view.body.last_unhealthy_code).toBe('400')
    expect((await visitors(connection.id)).status).toBe(403)
    expect(tokenRequests()).toHaveLength(1)
  })

  it('comes back to life when new tokens are given to a connection whose refresh failed', async () => {
    const { connection, tokens } = await connectWithTokens(-10)
    ph.oauth.revoke({ token: tokens.refresh_token, client_id: PH_CLIENT_ID, client_secret: PH_CLIENT_SECRET })
    expect((await visitors(connection.id)).status).toBe(403)
    // The integrator obtained new tokens for the same PostHog account and gives them to the connection.
    const fresh = ph.oauth.issueTokens({ clientId: PH_CLIENT_ID, scopes: ALL_SCOPES })
    const patched = await s.api('PATCH', `/unified/connection/${connection.id}`, {
      auth: { access_token: fresh.access_token, refresh_token: fresh.refresh_token },
    })
    // The old refresh failure and expiry went with the new tokens: the verification refused them as dead.
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const now = await stored(connection.id)
    expect(now.refresh_error).toBeUndefined()
    expect(now.expiry_date).toBeUndefined()
    expect((await visitors(connection.id)).status).toBe(200)
  })

  it('revokes the grant at PostHog when the connection is removed', async () => {
    const { connection, tokens } = await connectWithTokens(3600)
    ph.clearRequests()
    expect((await s.api('DELETE', `/unified/connection/${connection.id}`)).status).toBe(200)
    const revokes = ph.requests().filter((r) => r.path === '/oauth/revoke/')
    expect(revokes).toHaveLength(1)
    expect(revokes[0]?.body).toMatchObject({ token: tokens.refresh_token, client_id: PH_CLIENT_ID })
    expect(ph.oauth.check(tokens.access_token).ok).toBe(false)
    expect(ph.oauth.refreshTokenLive(tokens.refresh_token)).toBe(false)
  })

  it('still offers the key page when the workspace has no PostHog OAuth app', async () => {
    await s.api('DELETE', '/unified/workspace/oauth_app/posthog')
    try {
      const res = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/posthog`)
      expect(res.status).toBe(200)
      expect(res.text.startsWith(`${s.url}/unified/integration/key/`)).toBe(true)
      const page = await browserGet(res.text)
      expect(page.text).toContain('name="token"')
      expect(page.text).not.toContain('name="access_token"')
    } finally {
      await configurePosthogApp(s, ph)
    }
  })
})

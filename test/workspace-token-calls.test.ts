import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, browserGet, startAuthorization, startAuthServer } from './support/auth-server.js'
import { testConfig } from './support/config.js'
import {
  CLIENT_ID,
  configureGoogleApp,
  connectWithTokens,
  decide,
  GA4,
  type GoogleSetup,
  startGoogle,
} from './support/google-oauth.js'

const APP = 'https://app.example.com'
const PROVIDER_TIMEOUT_MS = 20_000
const READONLY = 'https://www.googleapis.com/auth/analytics.readonly'
const WORKSPACE_BUSY =
  'this workspace already has 1 provider calls running and 1 waiting, its limit ' +
  '(UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY=1, UNIGATE_PROVIDER_WORKSPACE_QUEUE=1); retry later'

/**
 * The calls that verify credentials and the token requests are made for a workspace like its reads: they
 * count against UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY too, so a workspace at its bound sends no more
 * through creating connections or renewing tokens, and waits its turn for them as for the rest.
 */
describe("verification and token requests count against the workspace's provider calls", () => {
  let s: AuthServer
  let g: GoogleSetup
  beforeAll(async () => {
    g = await startGoogle()
    s = await startAuthServer('sqlite', {
      // Long enough that a token request's wait and answer together outlast the 30 s lease refreshes held.
      providerTimeoutMs: PROVIDER_TIMEOUT_MS,
      outbound: { ...testConfig('sqlite').outbound, workspaceConcurrency: 1, workspaceQueue: 1 },
    })
    await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })
    await configureGoogleApp(s, g)
  })
  afterAll(async () => {
    await s?.close()
    await g?.close()
  })

  const limiter = () => s.services.transport.workspaceLimiter
  /** The workspace's slot taken (say, by a relay to a caller that reads slowly): answers its release. */
  const holdSlot = () => limiter().tryAcquire(s.workspaceId)!
  /** The slot taken and the queue filled: answers a function that frees both. */
  const saturate = () => {
    const held = holdSlot()
    const queued = limiter().acquire(s.workspaceId)
    return async () => {
      held()
      ;(await queued)()
    }
  }
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const res = await request(`${s.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${s.apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    return {
      status: res.statusCode,
      retryAfter: res.headers['retry-after'],
      body: (await res.body.json()) as { id?: string; message?: string },
    }
  }
  const tokenRequests = () => g.ga4.requests().filter((r) => r.method === 'POST' && r.path === '/token')
  const issued = () => g.ga4.authority.issueTokens({ clientId: CLIENT_ID, scopes: [READONLY] })

  it('past the queue, creating or updating a connection is a 429 naming the bound, and nothing is sent', async () => {
    const tokens = issued()
    const auth = { access_token: tokens.access_token, api_url: g.ga4.url }
    const existing = await call('POST', '/unified/connection', { integration_type: GA4, auth })
    expect(existing.status, existing.body.message).toBe(200)
    g.ga4.clearRequests()
    const free = saturate()
    const refusals = [
      await call('POST', '/unified/connection', { integration_type: GA4, auth }),
      await call('PATCH', `/unified/connection/${existing.body.id}`, {
        auth: { access_token: issued().access_token },
      }),
    ]
    await free()
    for (const refused of refusals) {
      expect(refused.status).toBe(429)
      expect(refused.retryAfter).toBe('1')
      expect(refused.body.message).toBe(WORKSPACE_BUSY)
    }
    expect(g.ga4.requests()).toEqual([])
    // Once the workspace's calls end, the same request verifies and creates.
    expect((await call('POST', '/unified/connection', { integration_type: GA4, auth })).status).toBe(200)
  })

  it('past the queue, a read needing a token refresh is a 429 naming the bound; the token endpoint is not asked', async () => {
    const connection = (await connectWithTokens(s, g, -60)).connection
    g.ga4.clearRequests()
    const free = saturate()
    const refused = await call('GET', `/analytics/${connection.id}/property`)
    await free()
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe('1')
    expect(refused.body.message).toBe(WORKSPACE_BUSY)
    expect(tokenRequests()).toEqual([])
    // Not a failure of the token endpoint: no backoff, the next read refreshes at once.
    expect((await call('GET', `/analytics/${connection.id}/property`)).status).toBe(200)
    expect(tokenRequests()).toHaveLength(1)
  })

  it('a token refresh waits in the queue for its turn, and goes once a slot frees', async () => {
    const connection = (await connectWithTokens(s, g, -60)).connection
    g.ga4.clearRequests()
    const held = holdSlot()
    const read = call('GET', `/analytics/${connection.id}/property`)
    for (let i = 0; i < 200 && limiter().load(s.workspaceId).waiting < 1; i++)
      await new Promise((r) => setTimeout(r, 10))
    // What waits is the refresh: nothing has reached Google yet.
    expect(limiter().load(s.workspaceId).waiting).toBe(1)
    expect(g.ga4.requests()).toEqual([])
    // Its lease on the refresh outlasts the token request's wait and answer (each up to the provider
    // timeout), so no other process takes it over and spends the same refresh token meanwhile.
    const [lease] = await s.services.db.selectFrom('connection_locks').selectAll().execute()
    expect(lease?.connection_id).toBe(connection.id)
    expect(Date.parse(lease!.expires_at) - Date.now()).toBeGreaterThan(2 * PROVIDER_TIMEOUT_MS)
    held()
    const answered = await read
    expect(answered.status, answered.body.message).toBe(200)
    expect(tokenRequests()).toHaveLength(1)
  })

  it('past the queue, the OAuth callback asks no token for its code and says which bound refused it', async () => {
    const count = (await s.api<unknown[]>('GET', '/unified/connection')).body.length
    const callback = await decide((await startAuthorization(s, GA4, APP)).toString(), 'allow')
    g.ga4.clearRequests()
    const free = saturate()
    const done = await browserGet(callback)
    await free()
    const back = new URL(done.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/failed`)
    expect(back.searchParams.get('error_code')).toBe('token_exchange_failed')
    expect(back.searchParams.get('error')).toBe(
      `Unigate did not ask Google Analytics 4 for the token: ${WORKSPACE_BUSY}.`,
    )
    expect(tokenRequests()).toEqual([])
    expect((await s.api<unknown[]>('GET', '/unified/connection')).body.length).toBe(count)
  })
})

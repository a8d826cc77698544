import { randomBytes } from 'node:crypto'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, startAuthServer } from './support/auth-server.js'
import {
  CLIENT_SECRET,
  configureGoogleApp,
  connectWithTokens,
  type GoogleSetup,
  startGoogle,
} from './support/google-oauth.js'
import { type ServerProcess, startServerProcess } from './support/processes.js'
import { storeKinds, uniqueSchema } from './support/stores.js'

async function get(base: string, apiKey: string, path: string) {
  const res = await request(`${base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined }
}

const tokenRequests = (g: GoogleSetup) =>
  g.ga4.requests().filter((r) => r.method === 'POST' && r.path === '/token')

describe.each(storeKinds())('OAuth token lifecycle on %s', (store) => {
  let s: AuthServer
  let g: GoogleSetup
  beforeAll(async () => {
    g = await startGoogle()
    s = await startAuthServer(store)
    await configureGoogleApp(s, g)
  })
  afterAll(async () => {
    await s?.close()
    await g?.close()
  })
  const properties = (id: string) => get(s.url, s.apiKey, `/analytics/${id}/property`)

  it('refreshes a token inside the margin before using it, and keeps the refresh token Google omits', async () => {
    const { connection, tokens } = await connectWithTokens(s, g, 30)
    g.ga4.clearRequests()
    expect((await properties(connection.id)).status).toBe(200)
    expect(tokenRequests(g)).toHaveLength(1)
    expect(tokenRequests(g)[0]?.body).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    })
    const stored = await s.services.connectionStore.get(s.workspaceId, connection.id)
    expect(stored?.credentials.access_token).not.toBe(tokens.access_token)
    expect(stored?.credentials.refresh_token).toBe(tokens.refresh_token)
    expect(Date.parse(stored!.credentials.expiry_date!)).toBeGreaterThan(Date.now() + 3000_000)
    // The new token is good: the next request needs no refresh.
    expect((await properties(connection.id)).status).toBe(200)
    expect(tokenRequests(g)).toHaveLength(1)
  })

  it('refreshes once when the provider answers 401 to a token it thinks expired', async () => {
    const { connection } = await connectWithTokens(s, g, 3599)
    g.ga4.authority.advance(3600)
    g.ga4.clearRequests()
    const res = await properties(connection.id)
    expect(res.status).toBe(200)
    expect(tokenRequests(g)).toHaveLength(1)
    const calls = g.ga4.requests().filter((r) => r.path !== '/token')
    expect(calls[0]?.path).toBe(calls[1]?.path)
  })

  it('marks the connection unhealthy on invalid_grant and answers 403 with a re-authorize hint, once', async () => {
    const { connection, tokens } = await connectWithTokens(s, g, -10)
    g.ga4.authority.revoke(tokens.refresh_token!)
    g.ga4.clearRequests()
    const res = await properties(connection.id)
    expect(res.status).toBe(403)
    expect(res.body.message).toMatch(/invalid_grant.*re-authorize.*\/unified\/integration\/auth\//)
    const view = await s.api<Record<string, string>>('GET', `/unified/connection/${connection.id}`)
    expect(view.body.last_unhealthy_at).toBeTruthy()
    expect(view.body.last_unhealthy_code).toBe('400')
    expect((await properties(connection.id)).status).toBe(403)
    expect(tokenRequests(g)).toHaveLength(1)
  })

  it("keeps and shows a token endpoint's refusal without the refresh token or client secret it quotes", async () => {
    const { connection, tokens } = await connectWithTokens(s, g, -10)
    g.ga4.fault({
      method: 'POST',
      pathPattern: '^/token$',
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: `refresh token ${tokens.refresh_token} of client ${CLIENT_SECRET} is revoked`,
      },
    })
    const res = await properties(connection.id)
    expect(res.status).toBe(403)
    expect(res.body.message).toMatch(/refresh token \[redacted\] of client \[redacted\] is revoked/)
    const view = await s.api('GET', `/unified/connection/${connection.id}`)
    const shown = JSON.stringify(view.body)
    expect(shown).toContain('[redacted]')
    expect(shown).not.toContain(tokens.refresh_token)
    expect(shown).not.toContain(CLIENT_SECRET)
  })

  it('never shows the refresh token a refusal kept before refusals were redacted', async () => {
    const { connection, tokens } = await connectWithTokens(s, g, -10)
    const stored = (await s.services.connectionStore.get(s.workspaceId, connection.id))!
    await s.services.connectionStore.update(
      s.workspaceId,
      connection.id,
      {
        credentials: {
          ...stored.credentials,
          refresh_error: `invalid_grant: refresh token ${tokens.refresh_token} is revoked`,
        },
      },
      new Date().toISOString(),
    )
    await s.services.resolver.invalidate(connection.id)
    const res = await properties(connection.id)
    expect(res.status).toBe(403)
    expect(res.body.message).toContain('refresh token [redacted] is revoked')
    const view = JSON.stringify((await s.api('GET', `/unified/connection/${connection.id}`)).body)
    expect(view).toContain('[redacted]')
    expect(view).not.toContain(tokens.refresh_token)
  })

  it('backs off after a transient token endpoint failure instead of asking on every request', async () => {
    const { connection } = await connectWithTokens(s, g, -10)
    g.ga4.authority.advance(3600)
    g.ga4.clearRequests()
    g.ga4.fault({ method: 'POST', pathPattern: '^/token$', status: 503 })
    const first = await properties(connection.id)
    expect(first.status).toBe(503)
    expect(first.headers['retry-after']).toBe('1')
    expect((await properties(connection.id)).status).toBe(503)
    expect(tokenRequests(g)).toHaveLength(1)
    await new Promise((r) => setTimeout(r, 1100))
    expect((await properties(connection.id)).status).toBe(200)
    expect(tokenRequests(g)).toHaveLength(2)
  })

  it('keeps a renewed token whose expires_in no Date can hold as one without a lifetime, on every door', async () => {
    // A token endpoint answering `expires_in: 1e300` (finite, so read as a lifetime) made an expiry past the
    // last instant a Date can hold: the refresh threw, passthrough answered 500, the rotated refresh token
    // was lost, and every request asked the endpoint again.
    const { connection } = await connectWithTokens(s, g, -10)
    g.ga4.clearRequests()
    g.ga4.fault({
      method: 'POST',
      pathPattern: '^/token$',
      status: 200,
      rawBody: JSON.stringify({
        access_token: 'renewed-access-token',
        refresh_token: 'rotated-refresh-token',
        token_type: 'Bearer',
      }).replace('}', ',"expires_in":1e300}'),
    })
    const relayed = await get(s.url, s.apiKey, `/passthrough/${connection.id}/v1beta/accountSummaries`)
    // Relayed as GA4 answered it: the emulator never issued the token the fault made up, so it is a 401, not
    // Unigate's 500.
    expect(relayed.status, JSON.stringify(relayed.body)).toBe(401)
    const stored = await s.services.connectionStore.get(s.workspaceId, connection.id)
    expect(stored?.credentials.access_token).toBe('renewed-access-token')
    expect(stored?.credentials.refresh_token).toBe('rotated-refresh-token')
    expect(stored?.credentials.expiry_date).toBeUndefined()
    await get(s.url, s.apiKey, `/passthrough/${connection.id}/v1beta/accountSummaries`)
    expect(tokenRequests(g)).toHaveLength(1)
  })

  it('relays a passthrough 401 without refreshing the token; a unified call after it refreshes once', async () => {
    // Passthrough cannot retry to learn whether a refresh helped, and its path may answer 401 for its own
    // reasons: a refresh per relayed 401 would ask the token endpoint and rotate refresh tokens on every call.
    const { connection, tokens } = await connectWithTokens(s, g, 3599)
    g.ga4.authority.advance(3600)
    g.ga4.clearRequests()
    for (let i = 0; i < 2; i++) {
      const relayed = await get(s.url, s.apiKey, `/passthrough/${connection.id}/v1beta/accountSummaries`)
      expect(relayed.status, JSON.stringify(relayed.body)).toBe(401)
    }
    expect(tokenRequests(g)).toHaveLength(0)
    const stored = await s.services.connectionStore.get(s.workspaceId, connection.id)
    expect(stored?.credentials.access_token).toBe(tokens.access_token)
    expect(stored?.credentials.refresh_token).toBe(tokens.refresh_token)
    expect((await properties(connection.id)).status).toBe(200)
    expect(tokenRequests(g)).toHaveLength(1)
  })

  it('revokes the grant at the provider and deletes the credentials when the connection is removed', async () => {
    const { connection, tokens } = await connectWithTokens(s, g, 3599)
    g.ga4.clearRequests()
    expect((await s.api('DELETE', `/unified/connection/${connection.id}`)).status).toBe(200)
    const revokes = g.ga4.requests().filter((r) => r.path === '/revoke')
    expect(revokes).toHaveLength(1)
    expect(revokes[0]?.body).toMatchObject({ token: tokens.refresh_token })
    expect(g.ga4.authority.check(tokens.access_token).ok).toBe(false)
    const row = await s.services.db
      .selectFrom('connections')
      .select('id')
      .where('id', '=', connection.id)
      .executeTakeFirst()
    expect(row).toBeUndefined()
  })
})

describe.skipIf(!storeKinds().includes('postgres'))(
  'OAuth refresh across server processes on PostgreSQL',
  () => {
    let s: AuthServer
    let g: GoogleSetup
    const processes: ServerProcess[] = []
    const schema = uniqueSchema()
    const masterKey = randomBytes(32)
    beforeAll(async () => {
      g = await startGoogle()
      s = await startAuthServer('postgres', { masterKey }, schema)
      await configureGoogleApp(s, g)
      for (const _ of [1, 2]) {
        const { freePort } = await import('./support/auth-server.js')
        processes.push(
          await startServerProcess({
            AUTH_TEST_PORT: String(await freePort()),
            AUTH_TEST_SCHEMA: schema,
            AUTH_TEST_MASTER_KEY: masterKey.toString('base64'),
          }),
        )
      }
    }, 60_000)
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
      await s?.close()
      await g?.close()
    })

    it('lets 50 concurrent requests on two processes cause exactly one token request', async () => {
      const { connection, tokens } = await connectWithTokens(s, g, -10)
      g.ga4.authority.advance(3600)
      g.ga4.clearRequests()
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          get(processes[i % 2]!.url, s.apiKey, `/analytics/${connection.id}/property`),
        ),
      )
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(200))
      expect(tokenRequests(g)).toHaveLength(1)
      const stored = await s.services.connectionStore.get(s.workspaceId, connection.id)
      expect(stored?.credentials.refresh_token).toBe(tokens.refresh_token)
      expect(await s.services.db.selectFrom('connection_locks').selectAll().execute()).toEqual([])
    })
  },
)

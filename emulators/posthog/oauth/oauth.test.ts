import { createHash } from 'node:crypto'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY } from '../constants.js'
import { type PosthogEmulator, startPosthogEmulator } from '../emulator.js'
import { DEFAULT_OAUTH_CLIENT } from './index.js'
import { grantsScope, requiredScope } from './scopes.js'

const client = { client_id: DEFAULT_OAUTH_CLIENT.clientId, client_secret: DEFAULT_OAUTH_CLIENT.clientSecret! }
const redirect = DEFAULT_OAUTH_CLIENT.redirectUris[0]!
const verifier = 'v'.repeat(50)
const challenge = createHash('sha256').update(verifier).digest('base64url')
let emu: PosthogEmulator

async function post(path: string, form: Record<string, string>) {
  const res = await request(`${emu.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  const text = await res.body.text()
  return {
    status: res.statusCode,
    location: res.headers.location as string | undefined,
    body: (text && res.headers['content-type']?.toString().includes('json')
      ? JSON.parse(text)
      : text) as Record<string, string>,
  }
}

async function api(path: string, token: string, method: 'GET' | 'POST' = 'GET') {
  const res = await request(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(method === 'POST'
      ? { body: JSON.stringify({ query: { kind: 'HogQLQuery', query: 'select event from events limit 1' } }) }
      : {}),
  })
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, string> }
}

function code(scopes = ['query:read', 'user:read']): string {
  return emu.oauth.issueCode({
    clientId: client.client_id,
    scopes,
    redirectUri: redirect,
    codeChallenge: challenge,
  })
}

const exchange = (c: string, extra: Record<string, string> = {}) =>
  post('/oauth/token/', {
    grant_type: 'authorization_code',
    code: c,
    redirect_uri: redirect,
    code_verifier: verifier,
    ...client,
    ...extra,
  })

beforeAll(async () => {
  emu = await startPosthogEmulator({ size: { events: 50 } })
})
afterAll(() => emu.close())

describe('PostHog scope rules', () => {
  it('need <object>:read for safe methods and :write otherwise; the query API is read-only', () => {
    expect(requiredScope('GET', '/api/users/@me/')).toBe('user:read')
    expect(requiredScope('POST', '/api/projects/1/query/')).toBe('query:read')
    expect(requiredScope('GET', '/api/projects/1/events/')).toBe('query:read')
    expect(requiredScope('PATCH', '/api/projects/1/persons/abc/')).toBe('person:write')
    expect(requiredScope('GET', '/api/environments/1/')).toBe('project:read')
    expect(requiredScope('POST', '/api/organizations/o/projects/')).toBe('project:write')
    expect(requiredScope('GET', '/api/projects/1/unknown_thing/')).toBeUndefined()
    expect(grantsScope(['person:write'], 'person:read')).toBe(true)
    expect(grantsScope(['person:read'], 'person:write')).toBe(false)
  })
})

describe('PostHog OAuth token endpoint', () => {
  it('exchanges a code once, with PKCE, for pha_/phr_ tokens', async () => {
    const c = code()
    const ok = await exchange(c)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'query:read user:read' })
    expect(ok.body.access_token).toMatch(/^pha_/)
    expect(ok.body.refresh_token).toMatch(/^phr_/)
    expect(await exchange(c)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('refuses a wrong verifier, a wrong redirect, a missing verifier and a wrong secret', async () => {
    expect(await exchange(code(), { code_verifier: 'w'.repeat(50) })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    expect(await exchange(code(), { redirect_uri: 'http://127.0.0.1/elsewhere' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    const { code_verifier: _v, ...noVerifier } = {
      grant_type: 'authorization_code',
      code: code(),
      redirect_uri: redirect,
      code_verifier: verifier,
      ...client,
    }
    expect(await post('/oauth/token/', noVerifier)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    })
    expect(await exchange(code(), { client_secret: 'nope' })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    })
    expect(await post('/oauth/token/', { grant_type: 'password', ...client })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    })
  })

  it('rotates refresh tokens: the old one and its access token stop working', async () => {
    const first = (await exchange(code())).body
    const refresh = (token: string) =>
      post('/oauth/token/', { grant_type: 'refresh_token', refresh_token: token, ...client })
    const second = await refresh(first.refresh_token!)
    expect(second.status).toBe(200)
    expect(second.body.refresh_token).not.toBe(first.refresh_token)
    expect(await refresh(first.refresh_token!)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    expect((await api('/api/users/@me/', first.access_token!)).status).toBe(401)
    expect((await api('/api/users/@me/', second.body.access_token!)).status).toBe(200)
  })

  it('revokes a pair by either token; an unknown token still answers 200', async () => {
    const tokens = (await exchange(code())).body
    expect((await post('/oauth/revoke/', { token: tokens.refresh_token!, ...client })).status).toBe(200)
    expect((await api('/api/users/@me/', tokens.access_token!)).status).toBe(401)
    expect((await post('/oauth/revoke/', { token: 'phr_unknown', ...client })).status).toBe(200)
    expect(
      await post('/oauth/revoke/', { token: 'x', client_id: client.client_id, client_secret: 'no' }),
    ).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    })
  })
})

describe('PostHog private API with OAuth tokens', () => {
  it('enforces scopes with permission_denied and expiry with a 401; personal keys still work', async () => {
    const tokens = (await exchange(code(['user:read']))).body
    expect((await api('/api/users/@me/', tokens.access_token!)).status).toBe(200)
    const denied = await api('/api/projects/@current/query/', tokens.access_token!, 'POST')
    expect(denied).toEqual({
      status: 403,
      body: {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: "API key missing required scope 'query:read'",
        attr: null,
      },
    })
    expect((await api('/api/projects/@current/query/', DEFAULT_PERSONAL_API_KEY, 'POST')).status).toBe(200)
    emu.oauth.advance(3601)
    const expired = await api('/api/users/@me/', tokens.access_token!)
    expect(expired.status).toBe(401)
    expect(expired.body.code).toBe('authentication_failed')
  })
})

describe('PostHog authorize page', () => {
  const query = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirect,
      scope: 'openid user:read',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    })

  it('shows a consent page; Allow redirects with a code, Deny with access_denied', async () => {
    const page = await request(`${emu.url}/oauth/authorize/?${query()}`)
    expect(page.statusCode).toBe(200)
    expect(await page.body.text()).toContain('id="allow"')
    const allow = await post('/oauth/authorize/', { ...Object.fromEntries(query()), decision: 'allow' })
    const back = new URL(allow.location!)
    expect(back.searchParams.get('state')).toBe('s1')
    expect((await exchange(back.searchParams.get('code')!)).status).toBe(200)
    const deny = await post('/oauth/authorize/', { ...Object.fromEntries(query()), decision: 'deny' })
    expect(new URL(deny.location!).searchParams.get('error')).toBe('access_denied')
  })

  it('refuses an unknown redirect with a page, and a request without PKCE with a redirect', async () => {
    const bad = await request(
      `${emu.url}/oauth/authorize/?${query({ redirect_uri: 'https://evil.example/cb' })}`,
    )
    expect(bad.statusCode).toBe(400)
    expect(bad.headers.location).toBeUndefined()
    await bad.body.dump()
    const q = query()
    q.delete('code_challenge')
    const noPkce = await request(`${emu.url}/oauth/authorize/?${q}`)
    expect(noPkce.statusCode).toBe(302)
    expect(new URL(String(noPkce.headers.location)).searchParams.get('error')).toBe('invalid_request')
    await noPkce.body.dump()
  })

  it('publishes its metadata', async () => {
    const res = await request(`${emu.url}/.well-known/oauth-authorization-server`)
    const meta = (await res.body.json()) as Record<string, unknown>
    expect(meta).toMatchObject({
      token_endpoint: `${emu.url}/oauth/token/`,
      code_challenge_methods_supported: ['S256'],
    })
  })
})

describe('PostHog OAuth addresses', () => {
  it('answer only with the trailing slash, as Django does', async () => {
    const res = await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', ...client })
    expect(res.status).toBe(301)
    expect(res.location).toBe('/oauth/token/')
  })
})

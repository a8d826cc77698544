import { createHash } from 'node:crypto'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_CLIENT, type GoogleOAuthEmulator, startGoogleOAuthEmulator } from './index.js'

const SCOPE = 'https://www.googleapis.com/auth/analytics.readonly'
let emu: GoogleOAuthEmulator

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await request(`${emu.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  })
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> }
}

const client = { client_id: DEFAULT_CLIENT.clientId, client_secret: DEFAULT_CLIENT.clientSecret }
const redirect = DEFAULT_CLIENT.redirectUris[0] as string

beforeAll(async () => {
  emu = await startGoogleOAuthEmulator()
})
afterAll(() => emu.close())

describe('POST /token, authorization_code', () => {
  it('exchanges a code once for tokens that the authority accepts', async () => {
    const code = emu.authority.issueCode({ scopes: [SCOPE] })
    const form = { grant_type: 'authorization_code', code, redirect_uri: redirect, ...client }
    const ok = await post('/token', form)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, scope: SCOPE })
    expect(String(ok.body.access_token)).toMatch(/^ya29\./)
    expect(String(ok.body.refresh_token)).toMatch(/^1\/\/0/)
    expect(emu.authority.check(String(ok.body.access_token))).toMatchObject({ ok: true })
    const replay = await post('/token', form)
    expect(replay).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Malformed auth code.' },
    })
  })

  it('refuses a wrong client secret, a wrong redirect and an expired code', async () => {
    const code = emu.authority.issueCode({ scopes: [SCOPE] })
    const bad = await post('/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      ...client,
      client_secret: 'x',
    })
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
    const code2 = emu.authority.issueCode({ scopes: [SCOPE] })
    const mismatch = await post('/token', {
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: 'http://evil/',
      ...client,
    })
    expect(mismatch).toMatchObject({ status: 400, body: { error: 'redirect_uri_mismatch' } })
    const code3 = emu.authority.issueCode({ scopes: [SCOPE] })
    emu.authority.advance(601)
    const late = await post('/token', {
      grant_type: 'authorization_code',
      code: code3,
      redirect_uri: redirect,
      ...client,
    })
    expect(late).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('checks the PKCE verifier and accepts client credentials as HTTP Basic', async () => {
    const verifier = 'a'.repeat(50)
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const code = emu.authority.issueCode({
      scopes: [SCOPE],
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    })
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`
    const wrong = await post(
      '/token',
      { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: 'b'.repeat(50) },
      { authorization: basic },
    )
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid code verifier.' },
    })
    const code2 = emu.authority.issueCode({
      scopes: [SCOPE],
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    })
    const right = await post(
      '/token',
      { grant_type: 'authorization_code', code: code2, redirect_uri: redirect, code_verifier: verifier },
      { authorization: basic },
    )
    expect(right.status).toBe(200)
  })
})

describe('POST /token, refresh_token', () => {
  it('issues a fresh access token; the old one expires on the clock', async () => {
    const held = emu.authority.issueTokens({ scopes: [SCOPE] })
    emu.authority.advance(3600)
    expect(emu.authority.check(held.access_token)).toEqual({ ok: false, reason: 'expired' })
    const res = await post('/token', {
      grant_type: 'refresh_token',
      refresh_token: held.refresh_token as string,
      ...client,
    })
    expect(res.status).toBe(200)
    expect(res.body.refresh_token).toBeUndefined()
    expect(emu.authority.check(String(res.body.access_token))).toMatchObject({ ok: true })
  })

  it('answers invalid_grant for an unknown or revoked refresh token, and revoke ends the grant', async () => {
    const unknown = await post('/token', {
      grant_type: 'refresh_token',
      refresh_token: '1//0nope',
      ...client,
    })
    expect(unknown).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
    })
    const held = emu.authority.issueTokens({ scopes: [SCOPE] })
    expect(await post('/revoke', { token: held.refresh_token as string })).toEqual({ status: 200, body: {} })
    expect(emu.authority.check(held.access_token)).toEqual({ ok: false, reason: 'invalid' })
    const after = await post('/token', {
      grant_type: 'refresh_token',
      refresh_token: held.refresh_token as string,
      ...client,
    })
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    expect(await post('/revoke', { token: held.refresh_token as string })).toMatchObject({
      status: 400,
      body: { error: 'invalid_token' },
    })
  })

  it('refuses an unknown grant type', async () => {
    expect(await post('/token', { grant_type: 'password', ...client })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    })
  })
})

describe('control endpoints', () => {
  it('mint a code that the token endpoint then exchanges', async () => {
    const res = await request(`${emu.url}/__emulator/google/codes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: [SCOPE] }),
    })
    const { code } = (await res.body.json()) as { code: string }
    const ok = await post('/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      ...client,
    })
    expect(ok.status).toBe(200)
  })
})

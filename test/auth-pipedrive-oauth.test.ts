import { describe, expect, it } from 'vitest'
import { type PipedriveEmulator, startPipedriveEmulator } from '../emulators/pipedrive/index.js'
import { type AuthServer, browserGet, useOAuthSuite } from './support/auth-server.js'

const APP = 'https://app.example.com'
const basic = `Basic ${Buffer.from('pd-client:pd-secret').toString('base64')}`

describe('Pipedrive OAuth (emulated Pipedrive)', () => {
  let s: AuthServer
  let pd: PipedriveEmulator
  useOAuthSuite({
    store: 'sqlite',
    app: APP,
    start: () => startPipedriveEmulator({ seed: 3, persons: 6 }),
    configure: async (server, provider) => {
      provider.registerClient({
        clientId: 'pd-client',
        clientSecret: 'pd-secret',
        redirectUris: [`${server.url}/unified/integration/oauth/callback`],
      })
      const app = await server.api('PUT', '/unified/workspace/oauth_app/pipedrive', {
        client_id: 'pd-client',
        client_secret: 'pd-secret',
        authorize_url: `${provider.url}/oauth/authorize`,
        token_url: `${provider.url}/oauth/token`,
        api_url: provider.url,
      })
      expect(app.status).toBe(200)
    },
    ready: (server, provider) => {
      s = server
      pd = provider
    },
  })

  const tokenCalls = () => pd.requests().filter((r) => r.method === 'POST' && r.path === '/oauth/token')

  it('authorizes without scopes, exchanges the code with HTTP Basic, keeps api_domain, and refreshes', async () => {
    const params = new URLSearchParams({ success_redirect: `${APP}/ok`, failure_redirect: `${APP}/failed` })
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/pipedrive?${params}`)
    expect(start.status).toBe(200)
    const authorize = new URL(start.text)
    expect(authorize.origin + authorize.pathname).toBe(`${pd.url}/oauth/authorize`)
    expect(authorize.searchParams.get('scope')).toBeNull()
    const consent = await browserGet(authorize.toString())
    expect(consent.status).toBe(302)
    const done = await browserGet(consent.location!)
    expect(done.status).toBe(303)
    const id = new URL(done.location!).searchParams.get('id')!
    expect(id).toBeTruthy()
    const exchange = tokenCalls()[0]!
    expect(exchange.headers.authorization).toBe(basic)
    expect(exchange.body).toMatchObject({ grant_type: 'authorization_code' })
    expect(JSON.stringify(exchange.body)).not.toContain('pd-secret')
    const stored = (await s.services.connectionStore.get(s.workspaceId, id))!.credentials
    expect(stored.api_domain).toBe(pd.url)
    expect(stored.access_token).toMatch(/^v1u:/)

    const list = await s.api<unknown[]>('GET', `/crm/${id}/contact?limit=2`)
    expect(list.status).toBe(200)
    expect(list.body).toHaveLength(2)
    const read = pd
      .requests()
      .filter((r) => r.path === '/api/v2/persons')
      .at(-1)!
    expect(read.headers.authorization).toBe(`Bearer ${stored.access_token}`)
    expect(read.headers['x-api-token']).toBeUndefined()

    // The hour passes: Pipedrive answers 401, Unigate refreshes with HTTP Basic and reads again.
    pd.state.expireAccessToken(stored.access_token!)
    pd.clearRequests()
    const again = await s.api<unknown[]>('GET', `/crm/${id}/contact?limit=2`)
    expect(again.status).toBe(200)
    const refresh = tokenCalls()[0]!
    expect(refresh.headers.authorization).toBe(basic)
    expect(refresh.body).toEqual({ grant_type: 'refresh_token', refresh_token: stored.refresh_token })
  })
})

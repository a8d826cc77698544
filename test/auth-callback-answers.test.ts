import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, browserGet, startAuthServer } from './support/auth-server.js'
import { type LocalServer, startLocalServer } from './support/local-server.js'

/**
 * The OAuth callback page is open to anyone holding the link, and the workspace's OAuth app may point its
 * api_url at an internal address where the operator allows them: what that address answered to the new
 * token's verification must not come back through the page (DESIGN 9).
 */
describe('the OAuth callback page, when the new token is verified at the app address', () => {
  let s: AuthServer
  let server: LocalServer
  /** What the stand-in answers a verification call, by request path. */
  let answer: (url: string) => string = () => '{}'
  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/token')) {
        res.end(JSON.stringify({ access_token: 'at-1234567890', token_type: 'bearer', expires_in: 7200 }))
        return
      }
      res.end(answer(req.url ?? ''))
    })
    s = await startAuthServer('sqlite')
  })
  afterAll(async () => {
    await s?.close()
    await server?.close()
  })

  /** Authorizes `type` with the app's token and API addresses at the stand-in: the callback's page. */
  async function callback(type: string) {
    const put = await s.api('PUT', `/unified/workspace/oauth_app/${type}`, {
      client_id: 'app',
      client_secret: 'app-secret',
      token_url: `${server.url}/token`,
      api_url: server.url,
    })
    expect(put.status).toBe(200)
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${type}`)
    expect(start.status).toBe(200)
    const state = new URL(start.text).searchParams.get('state') as string
    const page = await browserGet(
      `${s.url}/unified/integration/oauth/callback?${new URLSearchParams({ state, code: 'c0de' })}`,
    )
    const connections = await s.api<unknown[]>('GET', '/unified/connection')
    return { page, connections: connections.body.length }
  }

  it.each(['.', '..'])(
    "gusto: a company uuid of '%s' in token_info fails verification without the page quoting it",
    async (uuid) => {
      answer = (url) =>
        url.startsWith('/v1/token_info')
          ? JSON.stringify({ scope: 'companies:read', resource: { type: 'Company', uuid } })
          : '{}'
      const { page, connections } = await callback('gusto')
      expect(page.status).toBe(200)
      expect(page.text).toContain('The credentials could not be verified')
      expect(page.text).toContain('Gusto could not verify the new token.')
      expect(page.text).not.toContain(`&#39;${uuid}&#39;`)
      expect(page.text).not.toContain('not an id or filter value')
      expect(connections).toBe(0)
      // Nothing past token_info was asked: the path would have named another address.
      expect(server.seen.map((r) => r.url.split('?')[0])).not.toContain('/v1/companies/..')
    },
  )
})

/**
 * Anyone can start an authorization (the workspace id is in every embed script) and open the callback with
 * its state: the `error` and `error_description` of that query are the opener's words, not the provider's.
 */
describe("the OAuth callback's error, as the query gave it", () => {
  const APP = 'https://app.example.com'
  let s: AuthServer
  beforeAll(async () => {
    s = await startAuthServer('sqlite')
    await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })
    const put = await s.api('PUT', '/unified/workspace/oauth_app/hubspot', {
      client_id: 'app',
      client_secret: 'app-secret',
    })
    expect(put.status).toBe(200)
  })
  afterAll(async () => {
    await s?.close()
  })

  const PHISH = 'Your account is locked. Call +1-555-0100 now'

  /** Opens the callback of a new authorization with `error` and `error_description`. */
  async function failWith(error: string, query: Record<string, string> = {}) {
    const start = await browserGet(
      `${s.url}/unified/integration/auth/${s.workspaceId}/hubspot?${new URLSearchParams(query)}`,
    )
    expect(start.status).toBe(200)
    const state = new URL(start.text).searchParams.get('state') as string
    return browserGet(
      `${s.url}/unified/integration/oauth/callback?${new URLSearchParams({ state, error, error_description: PHISH })}`,
    )
  }

  it('the page names a registered error code and repeats no words of the query', async () => {
    const page = await failWith('server_error')
    expect(page.status).toBe(200)
    expect(page.text).toContain('HubSpot answered the authorization with server_error.')
    expect(page.text).not.toContain('Call +1-555-0100')
  })

  it("OpenID Connect's registered codes are named too (an integrator needs login_required from consent_required)", async () => {
    const page = await failWith('consent_required')
    expect(page.text).toContain('HubSpot answered the authorization with consent_required.')
    expect(page.text).not.toContain('Call +1-555-0100')
  })

  it('an error that is not a registered code is not repeated either', async () => {
    const page = await failWith(PHISH)
    expect(page.text).toContain('HubSpot answered the authorization with an error.')
    expect(page.text).not.toContain('Call +1-555-0100')
  })

  it('a declined consent says so, without the description', async () => {
    const page = await failWith('access_denied')
    expect(page.text).toContain('The user declined to grant access at HubSpot.')
    expect(page.text).not.toContain('Call +1-555-0100')
  })

  it('sends the browser to a failure redirect only while the workspace still allows its origin', async () => {
    const start = await browserGet(
      `${s.url}/unified/integration/auth/${s.workspaceId}/hubspot?${new URLSearchParams({ failure_redirect: `${APP}/failed` })}`,
    )
    const state = new URL(start.text).searchParams.get('state') as string
    // The workspace removes the origin while the link's state still lives.
    expect((await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [] })).status).toBe(200)
    try {
      const res = await browserGet(
        `${s.url}/unified/integration/oauth/callback?${new URLSearchParams({ state, error: 'access_denied' })}`,
      )
      expect(res.status).toBe(200)
      expect(res.location).toBeUndefined()
      expect(res.text).toContain('The user declined to grant access at HubSpot.')
    } finally {
      await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })
    }
  })

  it("nor does the integrator's failure redirect carry them", async () => {
    const res = await failWith(PHISH, { failure_redirect: `${APP}/failed` })
    expect(res.status).toBe(303)
    const back = new URL(res.location!)
    expect(back.searchParams.get('error_code')).toBe('provider_error')
    expect(back.searchParams.get('error')).toBe('HubSpot answered the authorization with an error.')
  })
})

/**
 * The page and the failure redirect name only registered codes; the operator still needs the provider's own
 * words on why an authorization failed. They go to the log, cut short, without what the token request sent.
 */
describe("the operator's log of a failed authorization", () => {
  const CLIENT_SECRET = 'app-secret-0123456789abcdef'
  const CODE = 'auth-code-0123456789abcdef'
  /** A secret whose form-encoding differs from itself: the Basic value sent is not base64 of id:secret. */
  const ODD_SECRET = 'odd+secret/with=signs:0123456789'
  const lines: string[] = []
  let s: AuthServer
  let server: LocalServer
  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      // A token endpoint that quotes what it refuses, as some do: the form, or the Authorization header.
      res.statusCode = 400
      res.setHeader('content-type', 'application/json')
      const said = req.headers.authorization
        ? `client ${req.headers.authorization} is not known`
        : `code ${CODE} is not valid for client_secret=${CLIENT_SECRET}`
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: said }))
    })
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    s = await startAuthServer('sqlite', { logLevel: 'info' }, undefined, stream)
    const put = await s.api('PUT', '/unified/workspace/oauth_app/hubspot', {
      client_id: 'app',
      client_secret: CLIENT_SECRET,
      token_url: `${server.url}/token`,
    })
    expect(put.status).toBe(200)
    // Pipedrive's token endpoint takes the client as HTTP Basic, each part form-encoded first.
    const basic = await s.api('PUT', '/unified/workspace/oauth_app/pipedrive', {
      client_id: 'app',
      client_secret: ODD_SECRET,
      token_url: `${server.url}/token`,
    })
    expect(basic.status, JSON.stringify(basic.body)).toBe(200)
  })
  afterAll(async () => {
    await s?.close()
    await server?.close()
  })

  async function callbackWith(query: Record<string, string> | string, type = 'hubspot') {
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${type}`)
    const state = new URL(start.text).searchParams.get('state') as string
    const rest = typeof query === 'string' ? `&${query}` : `&${new URLSearchParams(query)}`
    return browserGet(`${s.url}/unified/integration/oauth/callback?${new URLSearchParams({ state })}${rest}`)
  }

  const logged = (msg: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === msg)

  it("logs the provider's error and description from the callback query, cut to 512 characters", async () => {
    const page = await callbackWith({
      error: 'server_error',
      error_description: `down for upkeep ${'x'.repeat(900)}`,
    })
    expect(page.text).not.toContain('down for upkeep')
    const [line] = logged(
      'the provider answered the authorization with an error (words from the callback query, which anyone can open)',
    )
    expect(line).toMatchObject({
      level: 40,
      workspace_id: s.workspaceId,
      integration: 'hubspot',
      error: 'server_error',
    })
    expect(line!.error_description).toMatch(/^down for upkeep x+$/)
    expect((line!.error_description as string).length).toBe(512)
  })

  it("logs the token endpoint's refusal without the code or the client secret it quoted", async () => {
    const page = await callbackWith({ code: CODE })
    expect(page.text).toContain('invalid_grant, HTTP 400')
    const [line] = logged('the token endpoint refused to exchange the authorization code')
    expect(line).toMatchObject({ level: 40, integration: 'hubspot', status: 400 })
    expect(line!.error).toBe('invalid_grant: code [redacted] is not valid for client_secret=[redacted]')
    expect(lines.join('\n')).not.toContain(CLIENT_SECRET)
    expect(lines.join('\n')).not.toContain(CODE)
  })

  it('reads a repeated callback parameter by its first value, not as a 500', async () => {
    const page = await callbackWith(`${'error=server_error&'.repeat(600)}error_description=x`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('HubSpot answered the authorization with server_error.')
    const twice = await callbackWith(`code=${CODE}&code=another-code-0123456789`)
    expect(twice.status).toBe(200)
    expect(twice.text).toContain('invalid_grant, HTTP 400')
  })

  it('takes the Basic credentials it sent out of what the token endpoint quoted', async () => {
    const page = await callbackWith({ code: CODE }, 'pipedrive')
    expect(page.text).toContain('invalid_grant, HTTP 400')
    const sent = Buffer.from(`app:${encodeURIComponent(ODD_SECRET)}`).toString('base64')
    const [line] = logged('the token endpoint refused to exchange the authorization code').filter(
      (l) => l.integration === 'pipedrive',
    )
    expect(line!.error).toBe('invalid_grant: client Basic [redacted] is not known')
    expect(lines.join('\n')).not.toContain(sent)
  })
})

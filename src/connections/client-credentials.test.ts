import { describe, expect, it } from 'vitest'
import { ProviderError } from '../errors.js'
import type { ClientCredentialsGrant, Credentials } from '../integrations/types.js'
import type { OutboundCall, ProviderTransport } from '../outbound/index.js'
import { ClientCredentialsAuth } from './client-credentials.js'

/** A token endpoint answering from a queue, recording what it was asked. */
function tokenEndpoint(answers: { status: number; body: unknown }[]) {
  const asked: (Pick<OutboundCall, 'workspaceKey' | 'wait'> & {
    url: string
    headers: Record<string, string>
    body: string
  })[] = []
  const transport = {
    async fetch(url: string, call: OutboundCall & { headers: Record<string, string>; body: string }) {
      asked.push({
        url,
        headers: call.headers,
        body: call.body,
        workspaceKey: call.workspaceKey,
        wait: call.wait,
      })
      const next = answers.shift() ?? { status: 500, body: {} }
      return { status: next.status, headers: {}, body: Buffer.from(JSON.stringify(next.body)) }
    },
  } as unknown as ProviderTransport
  return { transport, asked }
}

let n = 0
/** A client of its own per test: the token cache is per client and process-wide. */
function grantFor(): { grant: ClientCredentialsGrant; credentials: Credentials } {
  n += 1
  return {
    grant: {
      tokenUrl: () => 'https://auth.example.test/token',
      client: (c) => ({ id: c.client_id ?? '', secret: c.client_secret ?? '' }),
      form: (c) => ({ sub: c.user_id }),
      defaultLifetimeMs: 3_600_000,
      providerName: 'Example',
    },
    credentials: { client_id: `client-${n}`, client_secret: `secret-${n}` },
  }
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString()

describe('ClientCredentialsAuth', () => {
  it('asks with HTTP Basic and a client_credentials form, then serves the token from memory', async () => {
    const { grant, credentials } = grantFor()
    const { transport, asked } = tokenEndpoint([
      { status: 200, body: { access_token: 'tok-1', token_type: 'Bearer', expires_at: inMs(3_600_000) } },
    ])
    const auth = new ClientCredentialsAuth(grant, { ...credentials, user_id: '42' }, transport, 1000)
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok-1' })
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok-1' })
    expect(asked).toHaveLength(1)
    expect(asked[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`,
    )
    expect(Object.fromEntries(new URLSearchParams(asked[0]?.body))).toEqual({
      grant_type: 'client_credentials',
      sub: '42',
    })
  })

  it("counts its token request against the connection's workspace, waiting for a slot no longer than its timeout", async () => {
    const { grant, credentials } = grantFor()
    const { transport, asked } = tokenEndpoint([{ status: 200, body: { access_token: 'tok-ws' } }])
    const before = Date.now()
    await new ClientCredentialsAuth(grant, credentials, transport, 1000, 'ws_1').headers()
    expect(asked[0]?.workspaceKey).toBe('ws_1')
    expect(asked[0]?.wait?.until).toBeGreaterThanOrEqual(before + 1000)
    expect(asked[0]?.wait?.until).toBeLessThanOrEqual(Date.now() + 1000)
    expect(asked[0]?.wait?.expired?.().message).toMatch(/UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY.*retry later/)
  })

  it('fetches again when the token is within a minute of expiry, and reads expires_in too', async () => {
    const { grant, credentials } = grantFor()
    const { transport, asked } = tokenEndpoint([
      { status: 200, body: { access_token: 'short', expires_at: inMs(30_000) } },
      { status: 200, body: { access_token: 'long', expires_in: 3600 } },
    ])
    const auth = new ClientCredentialsAuth(grant, credentials, transport, 1000)
    expect(await auth.headers()).toEqual({ authorization: 'Bearer short' })
    expect(await auth.headers()).toEqual({ authorization: 'Bearer long' })
    expect(await auth.headers()).toEqual({ authorization: 'Bearer long' })
    expect(asked).toHaveLength(2)
  })

  it('reads a lifetime of 0, a negative one or one past ten years as none given, so the token is kept', async () => {
    for (const expires_in of [0, -60, '', 1e300]) {
      const { grant, credentials } = grantFor()
      const { transport, asked } = tokenEndpoint([
        { status: 200, body: { access_token: 'tok', expires_in } },
        { status: 200, body: { access_token: 'again', expires_in } },
      ])
      const auth = new ClientCredentialsAuth(grant, credentials, transport, 1000)
      expect(await auth.headers()).toEqual({ authorization: 'Bearer tok' })
      // Read as expiring at once, every request asked the token endpoint again.
      expect(await auth.headers()).toEqual({ authorization: 'Bearer tok' })
      expect(asked).toHaveLength(1)
    }
  })

  it('drops a token the provider refused, so the retry carries a new one; concurrent askers share one call', async () => {
    const { grant, credentials } = grantFor()
    const { transport, asked } = tokenEndpoint([
      { status: 200, body: { access_token: 'old', expires_in: 3600 } },
      { status: 200, body: { access_token: 'new', expires_in: 3600 } },
    ])
    const auth = new ClientCredentialsAuth(grant, credentials, transport, 1000)
    const [a, b] = await Promise.all([auth.headers(), auth.headers()])
    expect([a, b]).toEqual([{ authorization: 'Bearer old' }, { authorization: 'Bearer old' }])
    expect(await auth.rejected({ authorization: 'Bearer old' })).toBe(true)
    expect(await auth.headers()).toEqual({ authorization: 'Bearer new' })
    // A late 401 for the old token does not throw the new one away.
    expect(await auth.rejected({ authorization: 'Bearer old' })).toBe(true)
    expect(await auth.headers()).toEqual({ authorization: 'Bearer new' })
    expect(asked).toHaveLength(2)
  })

  it('turns a refused client into a 401 that names no secret, and an outage into its status', async () => {
    const { grant, credentials } = grantFor()
    const { transport } = tokenEndpoint([
      { status: 401, body: { error: 'invalid_client' } },
      { status: 503, body: {} },
    ])
    const auth = new ClientCredentialsAuth(grant, credentials, transport, 1000)
    const refused = await auth.headers().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ProviderError)
    expect((refused as ProviderError).status).toBe(401)
    expect((refused as ProviderError).message).toContain('invalid_client')
    expect((refused as ProviderError).message).not.toContain(credentials.client_secret)
    const down = await auth.headers().catch((e: unknown) => e)
    expect((down as ProviderError).status).toBe(503)
  })
})

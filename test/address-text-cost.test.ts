import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oauthEndpointsFrom } from '../src/authorization/oauth-apps.js'
import { addressProblem } from '../src/connections/index.js'
import { providerTarget } from '../src/http/routes/passthrough.js'
import { authFieldsOf } from '../src/integrations/auth-methods.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { type AuthServer, startAuthServer } from './support/auth-server.js'

/**
 * An address a caller types (a connection's api_url, an OAuth app's, the key page's) with a long run of
 * slashes that is not at its end: `replace(/\/+$/, '')` tries the run from each of its slashes and reads
 * it to the end every time, so a run of n slashes costs about n²/2 steps of the one event loop every
 * tenant shares. No time is measured here: a run of 2,000,000 slashes is read in milliseconds when the cost
 * is linear and would take hours when it is quadratic, so a regression hangs this file (and fails CI)
 * instead of flaking on a loaded machine.
 */
const SLASHES = 2_000_000
const slashRun = (origin: string) => `${origin}/a${'/'.repeat(SLASHES)}b`

describe('addresses with a long run of slashes cost time linear in their length', () => {
  const withApiUrl = INTEGRATIONS.filter((i) => authFieldsOf(i).some((f) => f.name === 'api_url'))

  it.each(withApiUrl.map((i) => [i.type, i] as const))('%s: the api_url check', (_type, integration) => {
    const problem = addressProblem(integration, { api_url: slashRun('https://provider.example') }, [])
    expect(problem).toBeUndefined()
  })

  it('an OAuth app api_url', () => {
    const value = oauthEndpointsFrom({ api_url: slashRun('https://provider.example') }, [])
    expect(value.api_url?.endsWith('/b')).toBe(true)
  })

  it('a passthrough path', () => {
    expect(providerTarget(`/passthrough/cn_1/a${'/'.repeat(SLASHES)}b`)?.connectionId).toBe('cn_1')
  })
})

describe('the key page (no API key) does not hold the server on a typed api_url', () => {
  let s: AuthServer
  beforeAll(async () => {
    s = await startAuthServer('sqlite')
  })
  afterAll(async () => {
    await s?.close()
  })

  it('answers a submitted api_url of 60,000 slashes at once', async () => {
    const start = await fetch(`${s.url}/unified/integration/auth/${s.workspaceId}/posthog`)
    const page = await start.text()
    // Refused by the outbound policy (loopback is not allowed here): nothing is sent, the page says so.
    // Slashes need no encoding in a form body: 60,000 of them fit the page's 64 KiB.
    const res = await request(page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=phx_x&api_url=http://127.0.0.1:9/a${'/'.repeat(60_000)}b`,
    })
    await res.body.text()
    expect(res.statusCode).toBe(400)
  })
})

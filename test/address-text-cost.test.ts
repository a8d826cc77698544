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
 * it to the end every time, so 100,000 slashes cost about 5·10⁹ steps of the one event loop every tenant
 * shares. Each address must be read in time proportional to its length.
 */
const SLASHES = 100_000
const slashRun = (origin: string) => `${origin}/a${'/'.repeat(SLASHES)}b`
/** Far above linear work on 100 KB (well under a millisecond), far below the quadratic (seconds). */
const LINEAR_MS = 1000

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now()
  const value = work()
  return { value, ms: performance.now() - started }
}

describe('addresses with a long run of slashes cost time linear in their length', () => {
  const withApiUrl = INTEGRATIONS.filter((i) => authFieldsOf(i).some((f) => f.name === 'api_url'))

  it.each(withApiUrl.map((i) => [i.type, i] as const))('%s: the api_url check', (_type, integration) => {
    const { ms } = timed(() =>
      addressProblem(integration, { api_url: slashRun('https://provider.example') }, []),
    )
    expect(ms).toBeLessThan(LINEAR_MS)
  })

  it('an OAuth app api_url', () => {
    const { value, ms } = timed(() =>
      oauthEndpointsFrom({ api_url: slashRun('https://provider.example') }, []),
    )
    expect(value.api_url?.endsWith('/b')).toBe(true)
    expect(ms).toBeLessThan(LINEAR_MS)
  })

  it('a passthrough path', () => {
    const { ms } = timed(() => providerTarget(`/passthrough/cn_1/a${'/'.repeat(SLASHES)}b`))
    expect(ms).toBeLessThan(LINEAR_MS)
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
    const started = performance.now()
    // Refused by the outbound policy (loopback is not allowed here): nothing is sent, the page says so.
    // Slashes need no encoding in a form body: 60,000 of them fit the page's 64 KiB.
    const res = await request(page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=phx_x&api_url=http://127.0.0.1:9/a${'/'.repeat(60_000)}b`,
    })
    await res.body.text()
    expect(res.statusCode).toBe(400)
    expect(performance.now() - started).toBeLessThan(LINEAR_MS)
  })
})

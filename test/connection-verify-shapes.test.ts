import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authFieldsOf, missingAuthFields } from '../src/integrations/auth-methods.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import type { IntegrationDefinition } from '../src/integrations/types.js'
import { type Harness, startHarness } from './support/harness.js'
import { type LocalServer, startLocalServer } from './support/local-server.js'
import { storeKinds } from './support/stores.js'

const TOKEN_PATH = '/oauth-token'

/** An integration's own address fields: those a user types (`api_url`, `token_url`). */
const addressFields = (i: IntegrationDefinition) =>
  authFieldsOf(i).filter((f) => !f.secret && f.name.endsWith('_url'))

/** Every required field of the credentials' method filled with a dummy; every address at `server`. */
function credentialsAt(i: IntegrationDefinition, server: LocalServer): Record<string, string> {
  const auth: Record<string, string> = {}
  for (const f of addressFields(i))
    auth[f.name] = f.name === 'token_url' ? `${server.url}${TOKEN_PATH}` : server.url
  for (const f of missingAuthFields(i, auth)) auth[f.name] = f.options?.[0] ?? 'unigate-test'
  return auth
}

/**
 * Any JSON service answering `{}` (an internal one, say) must not pass for a provider: verification checks the
 * answer has the shape the provider documents for its call, so the connection is refused (502) and nothing is
 * stored, whatever address the credentials name.
 */
describe.each(storeKinds())('verification against an address that is not the provider, on %s', (store) => {
  let h: Harness
  let server: LocalServer
  /**
   * What the stand-in answers every call but the token exchange (a client-credentials token, Greenhouse's):
   * a body, or one per request path.
   */
  let answer: string | ((url: string) => string) = '{}'
  /** Gusto's token_info naming `resource` for a companies:read token; every other call answers `{}`. */
  const gustoTokenInfo = (resource: Record<string, string>) => (url: string) =>
    url.endsWith('/v1/token_info') ? JSON.stringify({ scope: 'companies:read', resource }) : '{}'
  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith(TOKEN_PATH)) {
        res.end(JSON.stringify({ access_token: 'at', token_type: 'bearer', expires_in: 3600 }))
        return
      }
      res.end(typeof answer === 'function' ? answer(req.url ?? '') : answer)
    })
    h = await startHarness(store)
  })
  afterAll(async () => {
    await h?.close()
    await server?.close()
  })

  const storedCount = async () =>
    (
      await h.services.connectionStore.list({
        workspaceId: h.workspaceId,
        sort: 'created_at',
        order: 'asc',
        limit: 1000,
        offset: 0,
      })
    ).length

  async function connect(i: IntegrationDefinition) {
    const before = await storedCount()
    const res = await h.api<{ message: string }>('POST', '/unified/connection', {
      body: { integration_type: i.type, auth: credentialsAt(i, server) },
    })
    return { res, stored: (await storedCount()) - before }
  }

  const withAddress = INTEGRATIONS.filter((i) => addressFields(i).length > 0)

  it('covers every integration', () => {
    expect(withAddress.map((i) => i.type)).toEqual(INTEGRATIONS.map((i) => i.type))
  })

  it.each(
    // GA4's documented answer for a Google account without Analytics accounts is `{}` itself (see below).
    withAddress.filter((i) => i.type !== 'googleanalytics').map((i) => [i.type, i] as const),
  )('%s: an address answering {} is refused with 502, storing nothing', async (_type, i) => {
    answer = '{}'
    server.seen.length = 0
    const { res, stored } = await connect(i)
    expect(res.status, res.text).toBe(502)
    expect(res.body.message).toContain('unexpected shape')
    expect(stored).toBe(0)
    expect(server.seen.length).toBeGreaterThan(0)
  })

  it('googleanalytics: an answer whose fields have other types is refused; an empty one is an empty account', async () => {
    const ga4 = INTEGRATIONS.find((i) => i.type === 'googleanalytics')!
    answer = JSON.stringify({ accountSummaries: [{ id: 1 }], nextPageToken: 7 })
    const wrong = await connect(ga4)
    expect(wrong.res.status, wrong.res.text).toBe(502)
    expect(wrong.stored).toBe(0)
    // Proto3 JSON leaves out empty lists: no check can tell this from another service's `{}`.
    answer = '{}'
    const empty = await connect(ga4)
    expect(empty.res.status, empty.res.text).toBe(200)
    expect(empty.stored).toBe(1)
  })

  it('plausible: a 2xx to a query without a site is not Plausible, whatever the sites list answers', async () => {
    const plausible = INTEGRATIONS.find((i) => i.type === 'plausible')!
    answer = JSON.stringify({ sites: [], meta: {} })
    const { res, stored } = await connect(plausible)
    expect(res.status, res.text).toBe(502)
    expect(res.body.message).toContain('POST /api/v2/query')
    expect(stored).toBe(0)
  })

  it('never echoes what the address answered', async () => {
    const umami = INTEGRATIONS.find((i) => i.type === 'umami')!
    answer = JSON.stringify({ data: 'internal-secret-7f3a', count: 'root:x:0:0' })
    const { res } = await connect(umami)
    expect(res.status).toBe(502)
    expect(res.text).not.toContain('internal-secret')
    expect(res.text).not.toContain('root:x')
  })

  it("never echoes the kind of resource an answer names, in refusing a token that is not a company's", async () => {
    const gusto = INTEGRATIONS.find((i) => i.type === 'gusto')!
    answer = gustoTokenInfo({ type: 'internal-secret-5be1', uuid: 'x' })
    const { res, stored } = await connect(gusto)
    expect(res.status, res.text).toBe(400)
    expect(res.body.message).toContain('not a company token')
    expect(res.text).not.toContain('internal-secret')
    expect(stored).toBe(0)
  })

  it('never echoes an id an earlier answer gave, in the name of a later call', async () => {
    const gusto = INTEGRATIONS.find((i) => i.type === 'gusto')!
    answer = gustoTokenInfo({ type: 'Company', uuid: 'internal-secret-91c2' })
    const { res, stored } = await connect(gusto)
    expect(res.status, res.text).toBe(502)
    expect(res.body.message).toContain('GET /v1/companies/{company_uuid}')
    expect(res.text).not.toContain('internal-secret')
    expect(stored).toBe(0)
  })
})

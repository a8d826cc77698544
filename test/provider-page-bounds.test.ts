import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../src/config.js'
import { OPERATION_BODY_CAPS } from '../src/integrations/http-client.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { createConnection } from './support/integration-suite.js'
import { type LocalServer, startLocalServer, storeConnection } from './support/local-server.js'

type Rec = Record<string, unknown>

/**
 * A self-hosted Umami (the connection's own `api_url`) whose website list never ends: every page is full and
 * the count always says there is more. Unigate reads at most 100 pages of it for one request.
 */
async function startEndlessUmami(
  /** Rows answered per page, whatever pageSize asked (default: as asked). */
  rowsPerPage?: number,
): Promise<{
  url: string
  listCalls: () => number
  /** Every request it received, the verification's included. */
  requests: () => number
  close(): Promise<void>
}> {
  let calls = 0
  let requests = 0
  const server: Server = createServer((req, res) => {
    requests++
    const url = new URL(req.url ?? '/', 'http://x')
    if (req.headers.authorization !== 'Bearer login-token' || url.pathname !== '/api/websites') {
      res.writeHead(404).end()
      return
    }
    const page = Number(url.searchParams.get('page'))
    const pageSize = Number(url.searchParams.get('pageSize'))
    if (pageSize > 1) calls++
    const data = Array.from({ length: pageSize > 1 ? (rowsPerPage ?? pageSize) : pageSize }, (_, i) => ({
      id: `w-${page}-${i}`,
      name: `site ${page}-${i}`,
      domain: `s${page}-${i}.example.com`,
      createdAt: '2026-01-01T00:00:00.000Z',
    }))
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data, count: 1_000_000_000, page, pageSize }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    listCalls: () => calls,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Connects to the Umami at `url` and lists its websites. */
async function listWebsites(h: Harness, url: string) {
  const conn = await createConnection(h, {
    integration_type: 'umami',
    auth: { api_key: 'login-token', api_url: `${url}/api` },
  })
  return h.api<Rec>('GET', `/analytics/${conn}/property`)
}

/** A harness and an endless Umami (`rowsPerPage` rows a page) for one describe block, with `overrides`. */
function useEndlessUmami(rowsPerPage?: number, overrides: Partial<Config> = {}) {
  const suite = {} as { h: Harness; umami: Awaited<ReturnType<typeof startEndlessUmami>> }
  beforeAll(async () => {
    suite.umami = await startEndlessUmami(rowsPerPage)
    suite.h = await startHarness('sqlite', overrides)
  })
  afterAll(async () => {
    await suite.h?.close()
    await suite.umami?.close()
  })
  return suite
}

describe('a provider that never ends its pages', () => {
  const s = useEndlessUmami()

  it('is read up to the bound, then answered 502 naming it, not read without end', async () => {
    const res = await listWebsites(s.h, s.umami.url)
    expect(res.status).toBe(502)
    expect(res.body.message).toContain('Umami answered more than 10000 websites for this request')
    expect(s.umami.listCalls()).toBe(100)
  })
})

describe('a provider that answers pages far larger than asked', () => {
  const CAP = 64 * 1024
  // 500 rows of about 120 bytes: under the body cap each, five times the page of 100 asked for.
  const s = useEndlessUmami(500, { outbound: { ...testConfig('sqlite').outbound, maxBodyBytes: CAP } })

  it("is read up to the operation's answer bytes (16 body caps), then answered 502 naming them", async () => {
    const res = await listWebsites(s.h, s.umami.url)
    expect(res.status).toBe(502)
    expect(res.body.message).toContain(
      `answered more than ${OPERATION_BODY_CAPS * CAP} bytes for this one request, the most Unigate reads for one (${OPERATION_BODY_CAPS} times UNIGATE_PROVIDER_MAX_BODY_BYTES)`,
    )
    // Stopped by the bytes read (about 20 pages of 55 kB), long before the bound of 100 pages.
    expect(s.umami.listCalls()).toBeLessThan(25)
  })
})

describe('a self-hosted PostHog that answers more rows than its query asked for', () => {
  let h: Harness
  let posthog: LocalServer
  // Every HogQL query is answered with one row more than its own LIMIT, as a server of the connection's
  // creator may (a real PostHog applies the LIMIT).
  beforeAll(async () => {
    posthog = await startLocalServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8')
      })
      req.on('end', () => {
        const query = String((JSON.parse(body) as { query?: { query?: string } }).query?.query ?? '')
        const limit = Number(/LIMIT (\d+)/.exec(query)?.[1] ?? 0)
        const results = Array.from({ length: limit + 1 }, (_, i) => [`row-${i}`])
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ columns: ['a'], results }))
      })
    })
    h = await startHarness('sqlite')
  })
  afterAll(async () => {
    await h?.close()
    await posthog?.close()
  })

  it.each([
    ['event', 'limit=1', 1],
    ['event', 'limit=3&fields=id', 3],
    ['session', 'limit=2', 2],
    ['report', 'type=EVENTS&dimension=EVENT_NAME&limit=2', 2],
  ])(
    'refuses a %s list (%s) with a 502 naming both counts, none of the rows passed on',
    async (object, query, limit) => {
      const conn = await storeConnection(h, posthog.url, [`analytics_${object}_read`])
      const res = await h.api<Rec>('GET', `/analytics/${conn}/${object}?${query}`)
      expect(res.status, res.text).toBe(502)
      expect(res.body.message).toContain(`PostHog answered ${limit + 1} rows to a query limited to ${limit}`)
      expect(res.text).not.toContain('row-0')
    },
  )
})

describe('a process short of memory', () => {
  // Past 1 % of the heap limit: any running process is, so every answer to be read is refused.
  const s = useEndlessUmami(undefined, { outbound: { ...testConfig('sqlite').outbound, heapShedPercent: 1 } })

  it('lets a workspace that read nothing lately verify; once it read the most, answers 503, sends nothing, stores nothing', async () => {
    const create = () =>
      s.h.api<Rec>('POST', '/unified/connection', {
        body: { integration_type: 'umami', auth: { api_key: 'login-token', api_url: `${s.umami.url}/api` } },
      })
    // Verification is a call for its workspace (it counts against the workspace's provider calls): while
    // memory is short, one that read nothing lately goes on, as its reads do, whatever other tenants hold.
    const first = await create()
    expect(first.status, first.text).toBe(200)
    // A list reads a page of websites (its next page is refused): now this workspace is the one that read the
    // most lately (it is the only one).
    const read = await s.h.api<Rec>('GET', `/analytics/${first.body.id}/property`)
    expect(read.status).toBe(503)
    const sent = s.umami.requests()
    const res = await create()
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body.message).toContain('short of memory')
    expect(s.umami.requests()).toBe(sent)
    const stored = (await s.h.api<{ id: string }[]>('GET', '/unified/connection')).body
    expect(stored.map((c) => c.id)).toEqual([first.body.id])
  })
})

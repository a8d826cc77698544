import { tracingChannel } from 'node:diagnostics_channel'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { ApiError } from '../src/errors.js'
import { buildApp } from '../src/http/app.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

type Call = Record<string, unknown>

/**
 * Bodiless passthrough calls are served by the passthrough door (src/http/passthrough-door.ts), before
 * Fastify; everything else by the passthrough routes. The same call must get the same answer and the same
 * API-call record either way: here each call goes over HTTP to the server (the door) and, by `inject`, to
 * Fastify's routes of an app on the same services (the routes), and the two are compared.
 */
describe('the passthrough door answers as the passthrough routes do', () => {
  let h: Harness
  let routes: FastifyInstance
  let emulator: PosthogEmulator
  let conn: string
  let readOnly: string
  // Fastify traces every request its router hands a handler: the door's calls never get there.
  const handledByFastify: string[] = []
  const channel = tracingChannel('fastify.request.handler')
  const onStart = (message: unknown) => {
    const { request: r } = message as { request: { url: string } }
    // Only Unigate's: the emulator in this process is a Fastify app too.
    if (r.url.startsWith('/passthrough/')) handledByFastify.push(r.url)
  }
  const subscribers = {
    start: onStart,
    end: () => {},
    asyncStart: () => {},
    asyncEnd: () => {},
    error: () => {},
  }

  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness('sqlite')
    conn = await connectPosthog(h, emulator, { external_xref: 'door-1' })
    readOnly = await connectPosthog(h, emulator, { permissions: ['analytics_event_read'] })
    routes = await buildApp(h.services, { logger: false })
    await routes.ready()
    channel.subscribe(subscribers)
  })
  afterAll(async () => {
    channel.unsubscribe(subscribers)
    await routes?.close()
    await h?.close()
    await emulator?.close()
  })
  beforeEach(() => {
    handledByFastify.length = 0
    emulator.clearFaults()
    emulator.clearRequests()
  })

  const lastInbound = async (): Promise<Call | undefined> => {
    const res = await h.api<Call[]>('GET', '/unified/apicall', {
      query: { type: 'inbound', limit: 5, sort: 'created_at', order: 'desc' },
    })
    return res.body.find((c) => String(c.path).includes('/passthrough/'))
  }
  const recorded = (call: Call | undefined) => {
    if (!call) return undefined
    const { id, created_at, updated_at, unified_response_time, endapi_response_time, ...kept } = call
    return kept
  }

  type Case = { name: string; method: string; path: () => string; headers?: Record<string, string> }
  const cases: Case[] = [
    { name: 'a read', method: 'GET', path: () => `/passthrough/${conn}/api/users/@me/` },
    {
      name: 'the SDK form, one encoded segment with a query',
      method: 'GET',
      path: () => `/passthrough/${conn}/${encodeURIComponent('/api/projects/1/persons/?limit=2')}`,
    },
    { name: 'a provider 404', method: 'GET', path: () => `/passthrough/${conn}/api/projects/999999/` },
    { name: 'an unknown connection', method: 'GET', path: () => '/passthrough/cn_na_nope/api/users/@me/' },
    { name: 'a connection id alone', method: 'GET', path: () => `/passthrough/${conn}` },
    { name: 'a write on a read grant', method: 'DELETE', path: () => `/passthrough/${readOnly}/api/x/` },
    {
      name: 'a method override',
      method: 'GET',
      path: () => `/passthrough/${conn}/api/users/@me/`,
      headers: { 'x-http-method-override': 'DELETE' },
    },
    { name: 'a path above the base', method: 'GET', path: () => `/passthrough/${conn}/..%2F..%2Fadmin` },
    {
      name: 'a malformed encoding inside the SDK segment',
      method: 'GET',
      path: () => `/passthrough/${conn}/%2Fapi%2F%2525zz%2F`,
    },
    { name: 'OPTIONS', method: 'OPTIONS', path: () => `/passthrough/${conn}/api/users/@me/` },
  ]

  it.each(cases)('$name: same status, headers, body and API-call record', async (c) => {
    const headers = { authorization: `Bearer ${h.apiKey}`, 'user-agent': 'door-test', ...c.headers }
    const path = c.path()
    const door = await request(`${h.url}${path}`, { method: c.method as 'GET', headers })
    const doorBody = await door.body.text()
    const doorCall = recorded(await lastInbound())
    expect(handledByFastify).toEqual([])

    const viaRoutes = await routes.inject({ method: c.method as 'GET', url: path, headers })
    const routesCall = recorded(await lastInbound())
    expect(handledByFastify).toEqual([path])

    expect(door.statusCode).toBe(viaRoutes.statusCode)
    expect(door.headers['content-type']).toBe(viaRoutes.headers['content-type'])
    expect(door.headers['content-length']).toBe(viaRoutes.headers['content-length'])
    expect(door.headers['retry-after']).toBe(viaRoutes.headers['retry-after'])
    expect(doorBody).toBe(viaRoutes.body)
    expect(doorCall).toEqual(routesCall)
    expect(doorCall).toMatchObject({ user_agent: 'door-test', workspace_id: h.workspaceId })
  })

  it('a missing or unknown key: the same 401, and no record (no workspace to log into)', async () => {
    const before = await lastInbound()
    for (const authorization of [undefined, 'Bearer not-a-key']) {
      const headers: Record<string, string> = authorization ? { authorization } : {}
      const path = `/passthrough/${conn}/api/users/@me/`
      const door = await request(`${h.url}${path}`, { headers })
      const viaRoutes = await routes.inject({ method: 'GET', url: path, headers })
      expect(door.statusCode).toBe(401)
      expect(viaRoutes.statusCode).toBe(401)
      expect(door.headers['content-type']).toBe(viaRoutes.headers['content-type'])
      expect(await door.body.text()).toBe(viaRoutes.body)
    }
    expect(await lastInbound()).toEqual(before)
    expect(emulator.requests().filter((r) => r.path === '/api/users/@me/')).toEqual([])
  })

  it('records the size of its own error answers in bytes, as the routes do', async () => {
    const resolve = h.services.resolver.resolve
    h.services.resolver.resolve = async () => {
      throw new ApiError(403, 'reauthorize: jeton refusé — 認証エラー')
    }
    try {
      const headers = { authorization: `Bearer ${h.apiKey}`, 'user-agent': 'door-test' }
      const path = `/passthrough/${conn}/api/users/@me/`
      const door = await request(`${h.url}${path}`, { headers })
      await door.body.dump()
      const doorCall = await lastInbound()
      const viaRoutes = await routes.inject({ method: 'GET', url: path, headers })
      expect(door.statusCode).toBe(403)
      expect(doorCall).toMatchObject({ status: '403', size: Number(viaRoutes.headers['content-length']) })
      expect(recorded(await lastInbound())).toEqual(recorded(doorCall))
    } finally {
      h.services.resolver.resolve = resolve
    }
  })

  it('answers a failure of its own as the routes do (500, details in the log only), and serves on', async () => {
    const verifiedBefore = h.services.apiKeys.verifiedBefore
    h.services.apiKeys.verifiedBefore = () => {
      throw new Error('a bug with a secret detail')
    }
    try {
      const headers = { authorization: `Bearer ${h.apiKey}` }
      const path = `/passthrough/${conn}/api/users/@me/`
      const door = await request(`${h.url}${path}`, { headers })
      const viaRoutes = await routes.inject({ method: 'GET', url: path, headers })
      expect(door.statusCode).toBe(500)
      expect(viaRoutes.statusCode).toBe(500)
      expect(await door.body.text()).toBe(viaRoutes.body)
    } finally {
      h.services.apiKeys.verifiedBefore = verifiedBefore
    }
    expect((await h.api('GET', `/passthrough/${conn}/api/users/@me/`)).status).toBe(200)
  })

  it('leaves calls with a body, HEAD, and ids the router reads otherwise to the routes', async () => {
    const auth = { authorization: `Bearer ${h.apiKey}` }
    const post = await request(`${h.url}/passthrough/${conn}/i/v0/e/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'door', distinct_id: 'd-1', api_key: 'x' }),
    })
    await post.body.dump()
    const head = await request(`${h.url}/passthrough/${conn}/api/users/@me/`, {
      method: 'HEAD',
      headers: auth,
    })
    await head.body.dump()
    const encodedId = await request(`${h.url}/passthrough/${encodeURIComponent(conn)}%20/api/users/@me/`, {
      headers: auth,
    })
    await encodedId.body.dump()
    expect(handledByFastify).toHaveLength(3)
    // Answered by Fastify before any handler (its router's own refusals), as the routes answer them.
    for (const path of [`/passthrough/${'c'.repeat(501)}/api/users/@me/`, `/passthrough/${conn}/%E0%A4%A`]) {
      const door = await request(`${h.url}${path}`, { headers: auth })
      const viaRoutes = await routes.inject({ method: 'GET', url: path, headers: auth })
      expect(door.statusCode).toBe(viaRoutes.statusCode)
      expect(await door.body.text()).toBe(viaRoutes.body)
    }
  })

  it('writes the request logs Fastify writes, with ids from the same sequence and the path redacted', async () => {
    const before = h.logs().length
    const res = await request(
      `${h.url}/passthrough/${conn}/${encodeURIComponent('/api/users/@me/?token=abc')}`,
      {
        headers: { authorization: `Bearer ${h.apiKey}` },
      },
    )
    await res.body.dump()
    await h.api('GET', '/health')
    const lines = h
      .logs()
      .slice(before)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const incoming = lines.filter((l) => l.msg === 'incoming request')
    const completed = lines.filter((l) => l.msg === 'request completed')
    expect(incoming).toHaveLength(2)
    expect(completed).toHaveLength(2)
    const [door, health] = incoming as [Record<string, unknown>, Record<string, unknown>]
    expect(door.req).toEqual({
      id: door.reqId,
      method: 'GET',
      path: `/passthrough/${conn}/%2Fapi%2Fusers%2F%40me%2F`,
    })
    expect(completed[0]).toMatchObject({ reqId: door.reqId, res: { statusCode: 200 } })
    expect(door.reqId).not.toBe(health.reqId)
    expect(h.logs().slice(before)).not.toContain('token=abc')
  })

  it('records a relayed answer the provider cut short, by the door and by the routes', async () => {
    // A provider that sends its status and part of the body, then drops the connection; every other path is
    // the emulator's, so the connection can be made and verified.
    const provider = createServer((req, res) => {
      if (req.url?.startsWith('/cut/')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
        res.write('{"results":[')
        setTimeout(() => res.socket?.destroy(), 20)
        return
      }
      req.pipe(
        httpRequest(`${emulator.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }),
      )
    })
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = provider.address() as AddressInfo
      const cut = await connectPosthog(h, { url: `http://127.0.0.1:${port}` } as PosthogEmulator)
      const auth = { authorization: `Bearer ${h.apiKey}` }
      // A GET by the door, a POST with a body by the routes: each recorded with the status that went out.
      const calls = [
        { method: 'GET', headers: auth, name: 'listPassthroughs' },
        {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/plain' },
          body: 'x',
          name: 'createPassthroughRaw',
        },
      ] as const
      for (const call of calls) {
        const before = h.logs().length
        const res = await request(`${h.url}/passthrough/${cut}/cut/`, call)
        expect(res.statusCode).toBe(200)
        await expect(res.body.text()).rejects.toThrow()
        await new Promise((r) => setTimeout(r, 50))
        expect(await lastInbound()).toMatchObject({ connection_id: cut, status: '200', name: call.name })
        // Logged as cut short, not as completed, on both paths.
        const lines = h
          .logs()
          .slice(before)
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { msg: string; reqId?: string; req?: { path: string } })
        const reqId = lines.find((l) => l.req?.path.endsWith('/cut/'))?.reqId
        expect(lines.filter((l) => l.reqId === reqId).map((l) => l.msg)).toEqual([
          'incoming request',
          'the relayed answer ended early (the provider or the caller closed it)',
        ])
      }
      expect(handledByFastify).toEqual([`/passthrough/${cut}/cut/`])
    } finally {
      provider.closeAllConnections()
      await new Promise((resolve) => provider.close(resolve))
    }
  })
})

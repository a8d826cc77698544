import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable, Writable } from 'node:stream'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  ApiError,
  ConnectionBusyError,
  ProviderAnswerTooLargeError,
  ProviderTimeoutError,
  ProviderUnreachableError,
} from '../errors.js'
import { v8HeapUse } from './heap-guard.js'
import {
  type OutboundAddress,
  ProviderTransport,
  type ProviderTransportSettings,
  SMALL_ANSWER_BYTES,
} from './provider-transport.js'

/** A local server standing in for a provider, and for the internal service a provider might point at. */
function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    handler(req, res)
  })
  return new Promise<{ server: Server; url: string; seen: string[] }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }),
    ),
  )
}

const settings = (over: Partial<ProviderTransportSettings> = {}): ProviderTransportSettings => ({
  allowAddresses: ['loopback'],
  timeoutMs: 2_000,
  maxBodyBytes: 4096,
  answerDeadlineMs: 60_000,
  operationDeadlineMs: 600_000,
  connectionConcurrency: 4,
  connectionQueue: 4,
  workspaceConcurrency: 256,
  workspaceQueue: 1024,
  heapShedPercent: 75,
  ...over,
})

/** Each case runs with the address as text (undici's top-level API) and pre-split (the agent's own API). */
const addressForms: [string, (url: string) => OutboundAddress][] = [
  ['a URL', (url) => url],
  [
    'a pre-split origin and path',
    (url) => {
      const u = new URL(url)
      return { origin: u.origin, path: u.pathname + u.search }
    },
  ],
]

describe.each(addressForms)('ProviderTransport, given %s', (_form, at) => {
  let internal: Awaited<ReturnType<typeof listen>>
  let provider: Awaited<ReturnType<typeof listen>>
  const held: ServerResponse[] = []
  const transports: ProviderTransport[] = []
  const transport = (over: Partial<ProviderTransportSettings> = {}) => {
    const t = new ProviderTransport(settings(over))
    transports.push(t)
    return t
  }

  beforeAll(async () => {
    internal = await listen((_req, res) => res.end('internal secret'))
    provider = await listen((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `${internal.url}/latest/meta-data` }).end('moved')
      } else if (req.url === '/big-declared') {
        res.writeHead(200, { 'content-length': '10000' }).end('x'.repeat(10_000))
      } else if (req.url === '/big-chunked') {
        res.writeHead(200)
        for (let i = 0; i < 10; i++) res.write('x'.repeat(1000))
        res.end()
      } else if (req.url === '/token-declared') {
        res
          .writeHead(200, { 'content-length': String(SMALL_ANSWER_BYTES + 1) })
          .end('x'.repeat(SMALL_ANSWER_BYTES + 1))
      } else if (req.url === '/token-chunked') {
        res.writeHead(200)
        res.end('x'.repeat(SMALL_ANSWER_BYTES + 1))
      } else if (req.url === '/hang') {
        held.push(res)
      } else if (req.url === '/early-hints') {
        // An interim 103 every 100 ms, the answer after 3 s: each interim answer restarts undici's headers timeout.
        held.push(res)
        const hint = setInterval(() => res.writeEarlyHints({ link: '</a.css>; rel=preload' }), 100)
        const answer = setTimeout(() => res.end('{"ok":true}'), 3_000)
        res.once('close', () => {
          clearInterval(hint)
          clearTimeout(answer)
        })
      } else if (req.url === '/hint-then-upload') {
        // A 103 at once, the answer once the whole upload is in.
        res.writeEarlyHints({ link: '</a.css>; rel=preload' })
        req.resume()
        req.on('end', () => res.end('{"ok":"uploaded"}'))
      } else if (req.url === '/one-hint') {
        // The way a server uses Early Hints: one 103, then the answer.
        res.writeEarlyHints({ link: '</a.css>; rel=preload' })
        setTimeout(() => res.end('{"ok":"hinted"}'), 50)
      } else if (req.url === '/trickle') {
        // A byte every 20 ms, never ending: no pause reaches a timeout.
        res.writeHead(200)
        held.push(res)
        const drip = setInterval(() => res.write('x'), 20)
        res.once('close', () => clearInterval(drip))
      } else {
        res.end('{"ok":true}')
      }
    })
  })
  afterAll(async () => {
    for (const res of held) res.destroy()
    await Promise.all(transports.map((t) => t.close()))
    await new Promise((r) => internal.server.close(r))
    await new Promise((r) => provider.server.close(r))
  })
  beforeEach(() => {
    internal.seen.length = 0
    provider.seen.length = 0
  })

  it('refuses an internal address unless allowed, naming the policy, and sends nothing', async () => {
    const strict = transport({ allowAddresses: [] })
    const port = new URL(internal.url).port
    for (const url of [
      `http://127.0.0.1:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      `http://localhost:${port}/x`,
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const err = await strict.fetch(at(url)).catch((e: unknown) => e)
      expect(err, url).toBeInstanceOf(ProviderUnreachableError)
      expect((err as ProviderUnreachableError).reason, url).toMatch(
        /refused by the outbound address policy: .*(loopback|link-local).*UNIGATE_OUTBOUND_ALLOW_ADDRESSES/,
      )
    }
    expect(internal.seen).toEqual([])
    const allowed = await transport().fetch(at(`http://127.0.0.1:${port}/x`))
    expect(allowed.body.toString()).toBe('internal secret')
  })

  it('sends the method, path and query it is given, byte for byte', async () => {
    const res = await transport().fetch(at(`${provider.url}/ok/a%20b?x=1&y=%2F&z`), {
      method: 'POST',
      body: '{}',
    })
    expect(res.status).toBe(200)
    expect(provider.seen).toEqual(['POST /ok/a%20b?x=1&y=%2F&z'])
  })

  it('never follows a redirect: the 3xx is the answer', async () => {
    const res = await transport().fetch(at(`${provider.url}/redirect`))
    expect(res.status).toBe(302)
    expect(res.body.toString()).toBe('moved')
    expect(internal.seen).toEqual([])
  })

  it('abandons an answer past the cap, declared or not', async () => {
    const t = transport()
    for (const path of ['/big-declared', '/big-chunked']) {
      const err = await t.fetch(at(`${provider.url}${path}`)).catch((e: unknown) => e)
      expect(err, path).toBeInstanceOf(ProviderAnswerTooLargeError)
      expect((err as Error).message).toMatch(/4096 bytes.*UNIGATE_PROVIDER_MAX_BODY_BYTES/)
    }
    // Relaying is not capped: the answer goes on as it comes.
    let total = 0
    await t.pipe(
      at(`${provider.url}/big-chunked`),
      {},
      () =>
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            total += chunk.length
            done()
          },
        }),
    )
    expect(total).toBe(10_000)
  })

  it('reads no answer into memory while the heap is past its mark: a 503 with Retry-After, nothing sent', async () => {
    let used = 800
    const t = transport({ heapShedPercent: 75, heapUse: () => ({ used, limit: 1000 }) })
    const err = await t.fetch(at(`${provider.url}/ok`)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).statusCode).toBe(503)
    expect((err as ApiError).headers['retry-after']).toBe('5')
    expect((err as Error).message).toMatch(/short of memory.*UNIGATE_HEAP_SHED_PERCENT, 75%/)
    expect(provider.seen).toEqual([])
    used = 700
    expect((await t.fetch(at(`${provider.url}/ok`))).status).toBe(200)
    expect(provider.seen).toEqual(['GET /ok'])
  })

  it('while memory is short refuses the workspace that read the most lately, the others only past the hard mark', async () => {
    let used = 0
    const t = transport({ maxBodyBytes: 20_000, heapShedPercent: 75, heapUse: () => ({ used, limit: 1000 }) })
    expect((await t.fetch(at(`${provider.url}/big-declared`), { workspaceKey: 'ws_heavy' })).status).toBe(200)
    expect((await t.fetch(at(`${provider.url}/ok`), { workspaceKey: 'ws_light' })).status).toBe(200)
    provider.seen.length = 0
    // Past the mark (75 %): the heavy reader waits, the light one's calls go on.
    used = 800
    const heavy = await t
      .fetch(at(`${provider.url}/ok`), { workspaceKey: 'ws_heavy' })
      .catch((e: unknown) => e)
    expect(heavy).toBeInstanceOf(ApiError)
    expect((heavy as ApiError).statusCode).toBe(503)
    expect((heavy as Error).message).toMatch(/the workspaces that read the most lately/)
    expect((await t.fetch(at(`${provider.url}/ok`), { workspaceKey: 'ws_light' })).status).toBe(200)
    // A call for no workspace (a connection being verified) is refused at the mark, as before.
    expect(await t.fetch(at(`${provider.url}/ok`)).catch((e: unknown) => e)).toBeInstanceOf(ApiError)
    // Past the hard mark, halfway to the limit (87.5 %), every call is refused.
    used = 900
    const light = await t
      .fetch(at(`${provider.url}/ok`), { workspaceKey: 'ws_light' })
      .catch((e: unknown) => e)
    expect((light as ApiError).statusCode).toBe(503)
    expect(provider.seen).toEqual(['GET /ok'])
  })

  it('checks memory again once a queued call gets its turn, and reads token answers regardless', async () => {
    let used = 0
    const t = transport({
      connectionConcurrency: 1,
      connectionQueue: 4,
      heapShedPercent: 75,
      heapUse: () => ({ used, limit: 1000 }),
    })
    const first = t.fetch(at(`${provider.url}/hang`), { limitKey: 'cn_q', timeoutMs: 300 }).catch((e) => e)
    const queued = t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_q' }).catch((e: unknown) => e)
    // Memory runs short while the second call waits behind the first (sent once the provider has it).
    while (!provider.seen.includes('GET /hang')) await new Promise((r) => setTimeout(r, 5))
    used = 900
    expect(await first).toBeInstanceOf(ProviderTimeoutError)
    const refused = await queued
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).statusCode).toBe(503)
    expect(provider.seen).toEqual(['GET /hang'])
    // A token endpoint's answer is a few hundred bytes: still read.
    expect((await t.fetch(at(`${provider.url}/ok`), { smallAnswer: true })).status).toBe(200)
  })

  it('reads a token endpoint answer only up to SMALL_ANSWER_BYTES, whatever the body cap', async () => {
    const t = transport({ maxBodyBytes: 32 * 1024 * 1024 })
    for (const path of ['/token-declared', '/token-chunked']) {
      const err = await t.fetch(at(`${provider.url}${path}`), { smallAnswer: true }).catch((e: unknown) => e)
      expect(err, path).toBeInstanceOf(ProviderAnswerTooLargeError)
      expect((err as Error).message).toBe(
        `provider unreachable: a token endpoint answer is larger than ${SMALL_ANSWER_BYTES} bytes, the most Unigate reads of one`,
      )
    }
    // The same answer as any other call's is read whole, under the body cap.
    expect((await t.fetch(at(`${provider.url}/token-chunked`))).body.length).toBe(SMALL_ANSWER_BYTES + 1)
  })

  it('counts the memory Buffers hold beside the heap', () => {
    const before = v8HeapUse().used
    const held = Buffer.alloc(64 * 1024 * 1024, 1)
    expect(v8HeapUse().used - before).toBeGreaterThanOrEqual(60 * 1024 * 1024)
    expect(held.length).toBe(64 * 1024 * 1024)
  })

  it('gives up on an answer that trickles past its deadline, however short each pause', async () => {
    const t = transport({ answerDeadlineMs: 300 })
    const err = await t.fetch(at(`${provider.url}/trickle`), { limitKey: 'cn_t' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderTimeoutError)
    expect((err as ProviderTimeoutError).message).toBe('provider did not answer within 300 ms')
    // The connection's slot is free again.
    expect((await t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_t' })).status).toBe(200)
  })

  it("gives up on a token endpoint's answer that trickles past the call's timeout, headers and body together", async () => {
    // The answer deadline is a minute; a token request ends within its timeout all the same (a refresh's
    // lease is counted from it).
    const t = transport({ answerDeadlineMs: 60_000 })
    const err = await t
      .fetch(at(`${provider.url}/trickle`), { smallAnswer: true, timeoutMs: 300 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderTimeoutError)
    expect((err as ProviderTimeoutError).message).toBe('provider did not answer within 300 ms')
  })

  it("gives up on a token endpoint answering interim 103s without end, within the call's timeout", async () => {
    const t = transport({ answerDeadlineMs: 60_000 })
    // Without the deadline the answer is a 200, after 3 s of interim answers (each restarts undici's headers
    // timeout).
    const token = await t
      .fetch(at(`${provider.url}/early-hints`), { smallAnswer: true, timeoutMs: 300, workspaceKey: 'ws_h' })
      .catch((e: unknown) => e)
    expect(token).toBeInstanceOf(ProviderTimeoutError)
    expect((token as ProviderTimeoutError).message).toBe('provider did not answer within 300 ms')
    expect(t.workspaceLimiter.load('ws_h')).toEqual({ active: 0, waiting: 0 })
  })

  it("gives up on any call answered by interim 103s without end, within the call's timeout, and frees its slots", async () => {
    const t = transport({ answerDeadlineMs: 60_000 })
    const call = { timeoutMs: 300, limitKey: 'cn_h', workspaceKey: 'ws_h' }
    // Without the bound both answer 200 after 3 s of interim answers, each restarting undici's headers timeout.
    const begun = Date.now()
    const buffered = await t.fetch(at(`${provider.url}/early-hints`), call).catch((e: unknown) => e)
    expect(buffered).toBeInstanceOf(ProviderTimeoutError)
    expect((buffered as ProviderTimeoutError).message).toBe('provider did not answer within 300 ms')
    let relayed = false
    const piped = await t
      .pipe(at(`${provider.url}/early-hints`), call, () => {
        relayed = true
        return new Writable({ write: (_chunk, _encoding, done) => done() })
      })
      .catch((e: unknown) => e)
    expect(piped).toBeInstanceOf(ProviderTimeoutError)
    expect(relayed).toBe(false)
    expect(Date.now() - begun).toBeLessThan(2_500)
    expect(t.limiter.load('cn_h')).toEqual({ active: 0, waiting: 0 })
    expect(t.workspaceLimiter.load('ws_h')).toEqual({ active: 0, waiting: 0 })
  })

  it('reads the answer that follows an Early Hints 103 in time, buffered and relayed', async () => {
    const t = transport()
    const buffered = await t.fetch(at(`${provider.url}/one-hint`), { timeoutMs: 300 })
    expect(buffered.status).toBe(200)
    expect(buffered.body.toString()).toBe('{"ok":"hinted"}')
    const chunks: Buffer[] = []
    await t.pipe(at(`${provider.url}/one-hint`), { timeoutMs: 300 }, ({ status }) => {
      expect(status).toBe(200)
      return new Writable({
        write: (chunk, _encoding, done) => {
          chunks.push(chunk)
          done()
        },
      })
    })
    expect(Buffer.concat(chunks).toString()).toBe('{"ok":"hinted"}')
  })

  it('relays a steady upload to its end though a 103 came first: the bound starts once the upload has ended', async () => {
    const t = transport()
    // A chunk every 100 ms for 1 s: no pause near the 300 ms timeout, the whole upload well past it.
    let sent = 0
    const upload = new Readable({
      read() {
        setTimeout(() => this.push(sent++ < 10 ? 'x'.repeat(100) : null), 100)
      },
    })
    const chunks: Buffer[] = []
    await t.pipe(
      at(`${provider.url}/hint-then-upload`),
      { method: 'POST', body: upload, timeoutMs: 300 },
      () =>
        new Writable({
          write: (chunk, _encoding, done) => {
            chunks.push(chunk)
            done()
          },
        }),
    )
    expect(Buffer.concat(chunks).toString()).toBe('{"ok":"uploaded"}')
  })

  it('times out a provider that does not answer', async () => {
    const err = await transport()
      .fetch(at(`${provider.url}/hang`), { timeoutMs: 100 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderTimeoutError)
  })

  it('holds a connection slot while an answer is relayed, and frees it once it is written', async () => {
    const t = transport({ connectionConcurrency: 1, connectionQueue: 0 })
    let whileRelaying: Promise<unknown> | undefined
    let active = -1
    await t.pipe(at(`${provider.url}/ok`), { limitKey: 'cn_1' }, ({ status }) => {
      expect(status).toBe(200)
      active = t.limiter.load('cn_1').active
      whileRelaying = t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_1' }).catch((e: unknown) => e)
      return new Writable({ write: (_chunk, _encoding, done) => done() })
    })
    expect(active).toBe(1)
    expect(String(await whileRelaying)).toMatch(/retry later/)
    expect(t.limiter.load('cn_1').active).toBe(0)
    expect((await t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_1' })).status).toBe(200)
  })

  it("bounds a workspace's calls over all its connections, and leaves other workspaces' alone", async () => {
    const t = transport({
      connectionConcurrency: 4,
      connectionQueue: 4,
      workspaceConcurrency: 2,
      workspaceQueue: 1,
    })
    // Two relays of one workspace on two connections, each holding its socket while its caller reads.
    const relays: (() => void)[] = []
    const relaying = ['cn_a', 'cn_b'].map(
      (limitKey) =>
        new Promise<void>((started) => {
          void t.pipe(at(`${provider.url}/ok`), { limitKey, workspaceKey: 'ws_1' }, () => {
            started()
            return new Writable({ write: (_chunk, _encoding, done) => relays.push(done) })
          })
        }),
    )
    await Promise.all(relaying)
    expect(t.workspaceLimiter.load('ws_1')).toEqual({ active: 2, waiting: 0 })
    // A third connection of the workspace waits its turn; past the workspace's queue, a 429's error.
    const queued = t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_c', workspaceKey: 'ws_1' })
    const refused = await t
      .fetch(at(`${provider.url}/ok`), { limitKey: 'cn_d', workspaceKey: 'ws_1' })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ConnectionBusyError)
    expect((refused as Error).message).toBe(
      'this workspace already has 2 provider calls running and 1 waiting, its limit ' +
        '(UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY=2, UNIGATE_PROVIDER_WORKSPACE_QUEUE=1); retry later',
    )
    // The refused call gave its connection's slot back; the queued one holds its own while it waits.
    expect(t.limiter.load('cn_d')).toEqual({ active: 0, waiting: 0 })
    expect(t.limiter.load('cn_c')).toEqual({ active: 1, waiting: 0 })
    // Another workspace's call to the same provider goes straight through.
    expect((await t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_x', workspaceKey: 'ws_2' })).status).toBe(
      200,
    )
    // Once a relay's caller reads on, its slot passes to the queued call.
    for (const done of relays.splice(0)) done()
    expect((await queued).status).toBe(200)
    while (relays.length > 0) relays.shift()!()
    expect(t.workspaceLimiter.load('ws_1')).toEqual({ active: 0, waiting: 0 })
    expect(t.limiter.load('cn_c')).toEqual({ active: 0, waiting: 0 })
  })

  it("takes a call's further slot (admit) only once it holds its workspace's, and frees it as the exchange ends", async () => {
    const t = transport({ workspaceConcurrency: 1, workspaceQueue: 1 })
    const taken = t.workspaceLimiter.tryAcquire('ws_a')!
    const order: string[] = []
    const admit = async () => {
      order.push('admitted')
      return () => order.push('freed')
    }
    const answer = t.fetch(at(`${provider.url}/ok`), { limitKey: 'cn_a', workspaceKey: 'ws_a', admit })
    await new Promise((r) => setTimeout(r, 20))
    // Waiting for the workspace's slot, it holds nothing further.
    expect(order).toEqual([])
    taken()
    expect((await answer).status).toBe(200)
    expect(order).toEqual(['admitted', 'freed'])
    // A refused admission gives the call's slots back, and nothing is sent.
    provider.seen.length = 0
    const refused = await t
      .fetch(at(`${provider.url}/ok`), {
        limitKey: 'cn_a',
        workspaceKey: 'ws_a',
        admit: () => Promise.reject(new ApiError(429, 'no query slot')),
      })
      .catch((e: unknown) => e)
    expect((refused as ApiError).statusCode).toBe(429)
    expect(t.workspaceLimiter.load('ws_a')).toEqual({ active: 0, waiting: 0 })
    expect(t.limiter.load('cn_a')).toEqual({ active: 0, waiting: 0 })
    expect(provider.seen).toEqual([])
  })

  it('frees the slot of a relay that fails before the answer, and says it timed out', async () => {
    const t = transport({ connectionConcurrency: 1, connectionQueue: 0 })
    const err = await t
      .pipe(at(`${provider.url}/hang`), { limitKey: 'cn_1', timeoutMs: 100 }, () => new Writable())
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderTimeoutError)
    expect(t.limiter.load('cn_1').active).toBe(0)
  })
})

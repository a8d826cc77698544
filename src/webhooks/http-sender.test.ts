import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebhookSender } from './http-sender.js'

const TIMEOUT_MS = 300

/** A receiver on loopback that answers each request with `answer`, and remembers what it was sent. */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const received: { body: string; headers: IncomingMessage['headers'] }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers })
      answer(req, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((r) => server.close(() => r()))
    },
  }
}

describe('WebhookSender', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c()
  })
  function sender(allowLoopback = true) {
    const s = new WebhookSender({ allowAddresses: allowLoopback ? ['loopback'] : [], timeoutMs: TIMEOUT_MS })
    cleanup.push(() => s.close())
    return s
  }
  async function started(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const r = await receiver(answer)
    cleanup.push(r.close)
    return r
  }

  it('POSTs the body as JSON with the given headers and reports a 2xx as accepted', async () => {
    const r = await started((_req, res) => res.writeHead(204).end())
    const s = sender()
    for (const n of [1, 2]) {
      const outcome = await s.send(r.url, `{"n":${n}}`, { 'x-unigate-delivery-id': `dl_${n}` })
      expect(outcome).toEqual({ ok: true, status: 204 })
    }
    expect(r.received.map((x) => x.body)).toEqual(['{"n":1}', '{"n":2}'])
    expect(r.received[1]!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Unigate-Webhooks/1',
      'x-unigate-delivery-id': 'dl_2',
    })
  })

  it("reports another status as a failure, with the receiver's retry-after", async () => {
    const r = await started((_req, res) => res.writeHead(429, { 'retry-after': '7' }).end('slow down'))
    expect(await sender().send(r.url, '{}', {})).toEqual({
      ok: false,
      status: 429,
      error: 'receiver answered 429',
      retryAfterMs: 7_000,
    })
  })

  it('gives up on a receiver that never answers, and on one that never finishes its answer', async () => {
    const silent = await started(() => undefined)
    const s = sender()
    expect(await s.send(silent.url, '{}', {})).toEqual({
      ok: false,
      error: `receiver did not answer within ${TIMEOUT_MS} ms`,
    })
    // The status came, so the delivery was accepted; the endless body is cut, not waited for.
    const trickling = await started((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      const timer = setInterval(() => res.write('.'), TIMEOUT_MS / 6)
      res.on('close', () => clearInterval(timer))
    })
    expect(await s.send(trickling.url, '{}', {})).toEqual({ ok: true, status: 200 })
    // Later attempts get a deadline of their own, not the expired one of an earlier attempt.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 2))
    const quick = await started((_req, res) => res.writeHead(200).end())
    expect(await s.send(quick.url, '{}', {})).toEqual({ ok: true, status: 200 })
  })

  it('stops at once when its caller aborts, reporting no attempt', async () => {
    const silent = await started(() => undefined)
    const abort = new AbortController()
    const sending = sender().send(silent.url, '{}', {}, abort.signal)
    while (silent.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    abort.abort()
    expect(await sending).toEqual({ ok: false, aborted: true })
  })

  it('refuses an address the policy refuses, and an address that is not a URL, saying why', async () => {
    const r = await started((_req, res) => res.writeHead(200).end())
    const s = sender(false)
    for (let i = 0; i < 2; i++) {
      const outcome = await s.send(r.url, '{}', {})
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(/^refused: /)
    }
    expect(await s.send('not a url', '{}', {})).toEqual({
      ok: false,
      error: "hook_url 'not a url' is not a URL",
    })
    expect(await s.send('ftp://receiver.example/hook', '{}', {})).toEqual({
      ok: false,
      error:
        'could not reach the receiver: Invalid URL protocol: the URL must start with `http:` or `https:`.',
    })
    expect(r.received).toEqual([])
  })
})

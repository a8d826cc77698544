import { createServer, type Server } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeredFathomVerification, connectFathomAt } from './support/fathom-stand-in.js'
import { type Harness, startHarness } from './support/harness.js'

const BODY_TIMEOUT_MS = 600

/**
 * A request body must arrive within UNIGATE_BODY_TIMEOUT_MS of its headers. Without it, a security review
 * held sockets open for good, without a key: half a body to the native webhook receiver, then nothing (or
 * a byte every few seconds), was waited for over five minutes with no end; so was the rest of a body after
 * a 401. Enough such connections take every file descriptor (and a megabyte of memory each) of the process.
 */
describe('a request body that does not arrive in time', () => {
  let provider: Server
  let h: Harness
  let conn: string
  const sockets: Socket[] = []

  beforeAll(async () => {
    provider = createServer((req, res) => {
      if (answeredFathomVerification(req, res)) return
      req.resume()
      req.once('end', () => res.end('{}'))
    })
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
    h = await startHarness('sqlite', { bodyTimeoutMs: BODY_TIMEOUT_MS, providerTimeoutMs: 3_000 })
    conn = await connectFathomAt(h, providerUrl)
  })
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await h?.close()
    provider?.closeAllConnections()
    await new Promise((resolve) => provider?.close(resolve))
  })

  /** Sends `head` and `body` on a raw socket; answers what came back once the server closed it. */
  const caller = async (head: string, body: string) => {
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    sockets.push(socket)
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    let text = ''
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8')
    })
    const started = Date.now()
    const closed = new Promise<{ text: string; afterMs: number }>((resolve) =>
      socket.once('close', () => resolve({ text, afterMs: Date.now() - started })),
    )
    socket.write(`${head}host: x\r\n\r\n${body}`)
    return { socket, closed }
  }

  /** At most `ms` for `p`, else undefined (the socket was held). */
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))])

  it('the native webhook receiver (no key): 408 JSON, and the connection is closed', async () => {
    const { closed } = await caller(
      'POST /native-webhooks/wh_none HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n',
      '{"a":',
    )
    const end = await within(closed, BODY_TIMEOUT_MS * 5)
    expect(end, 'the socket was still open').toBeDefined()
    expect(end!.text).toMatch(/^HTTP\/1.1 408/)
    expect(end!.text.toLowerCase()).toContain('connection: close')
    expect(end!.text).toContain(
      '"message":"the request body did not arrive within 600 ms (UNIGATE_BODY_TIMEOUT_MS)',
    )
    // The body read cut short is not a server failure: no error logged, no second answer attempted.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(h.logs()).not.toMatch(/"level":(50|60)/)
  })

  it('a body sent a byte at a time is bounded in all, not per pause', async () => {
    const { socket, closed } = await caller(
      `POST /unified/connection HTTP/1.1\r\nauthorization: Bearer ${h.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n`,
      '{',
    )
    const drip = setInterval(() => socket.write(' '), BODY_TIMEOUT_MS / 6)
    const end = await within(closed, BODY_TIMEOUT_MS * 5)
    clearInterval(drip)
    expect(end, 'the socket was still open').toBeDefined()
    expect(end!.text).toMatch(/^HTTP\/1.1 408/)
    expect(end!.afterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50)
  })

  it('the rest of a body after a 401 is not waited for beyond the bound', async () => {
    const { closed } = await caller(
      'POST /unified/connection HTTP/1.1\r\nauthorization: Bearer nope\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n',
      '{',
    )
    const end = await within(closed, BODY_TIMEOUT_MS * 5)
    expect(end, 'the socket was still open').toBeDefined()
    expect(end!.text).toMatch(/^HTTP\/1.1 401/)
  })

  it('a body trickled after an answer given before it was read is not read for ever', async () => {
    // An unknown route's 404 and a malformed address's 400 are answered before any route or hook runs; a
    // passthrough refused before it relays (no such connection, a method override) answers before the upload
    // is read. Node's server then reads and drops the rest of the body, kept going here a byte at a time.
    for (const head of [
      'POST /nothing-here HTTP/1.1\r\ncontent-length: 1000000\r\n',
      'POST /unified/connection/%E0%A4%A HTTP/1.1\r\ncontent-length: 1000000\r\n',
      `POST /passthrough/cn_na_nope/x HTTP/1.1\r\nauthorization: Bearer ${h.apiKey}\r\ncontent-length: 1000\r\n`,
      `POST /passthrough/${conn}/x HTTP/1.1\r\nauthorization: Bearer ${h.apiKey}\r\nx-http-method-override: PUT\r\ncontent-length: 1000\r\n`,
    ]) {
      const { socket, closed } = await caller(`${head}content-type: application/json\r\n`, '{')
      const drip = setInterval(() => socket.write(' '), BODY_TIMEOUT_MS / 6)
      const end = await within(closed, BODY_TIMEOUT_MS * 5)
      clearInterval(drip)
      expect(end, `${head.split('\r\n')[0]}: the socket was still open`).toBeDefined()
      expect(end!.text).toMatch(/^HTTP\/1.1 (400|404)/)
    }
  })

  it('a body that arrives in time is answered as before', async () => {
    const res = await h.api('PATCH', '/unified/workspace', { body: { name: 'still works' } })
    expect(res.status, res.text).toBe(200)
  })

  it('a passthrough upload that keeps coming is relayed whole, however long it takes', async () => {
    const { socket, closed } = await caller(
      `POST /passthrough/${conn}/slow-upload HTTP/1.1\r\nauthorization: Bearer ${h.apiKey}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: chunked\r\n',
      '',
    )
    // Longer than the body bound in all.
    for (const part of ['{', '"a"', ':', '1', '}']) {
      socket.write(`${part.length.toString(16)}\r\n${part}\r\n`)
      await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS / 2))
    }
    socket.write('0\r\n\r\n')
    const answered = new Promise<string>((resolve) => socket.on('data', (d: Buffer) => resolve(d.toString())))
    expect(await within(Promise.race([answered, closed.then((c) => c.text)]), 5_000)).toMatch(
      /^HTTP\/1.1 200/,
    )
  })
})

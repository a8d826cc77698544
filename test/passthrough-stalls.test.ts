import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeredFathomVerification, connectFathomAt } from './support/fathom-stand-in.js'
import { type Harness, startHarness } from './support/harness.js'

const PROVIDER_TIMEOUT_MS = 500

/**
 * A relay holds one of a provider origin's shared sockets while it lasts. A caller that stops reading the
 * answer, or stops sending its upload, must not hold it longer than a provider's own pause may last
 * (UNIGATE_PROVIDER_TIMEOUT_MS): a security review held all 1,024 sockets of a shared origin this way.
 */
describe('passthrough lets a provider socket go when the caller stalls', () => {
  let provider: Server
  let providerUrl: string
  let h: Harness
  let conn: string
  // What the provider saw of each relayed call: its request, and whether its side was closed unfinished.
  const calls: { path: string; req: IncomingMessage; res: ServerResponse; cut: boolean }[] = []
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const callers: Socket[] = []

  beforeAll(async () => {
    provider = createServer((req, res) => {
      if (answeredFathomVerification(req, res)) return
      if (req.url?.endsWith('/refuse')) {
        // Refused before the upload is read, as PostHog's 415 for a body type it does not take.
        res.writeHead(415, { 'content-type': 'application/json' })
        res.end('{"detail":"Unsupported media type"}')
        return
      }
      const call = { path: req.url ?? '', req, res, cut: false }
      calls.push(call)
      res.once('close', () => {
        call.cut = !res.writableFinished
      })
      if (req.url?.endsWith('/export')) {
        // 256 MiB, as fast as the reader takes it.
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        let left = 4096
        const pump = () => {
          while (left-- > 0) if (!res.write(chunk)) return void res.once('drain', pump)
          res.end()
        }
        pump()
        return
      }
      // An upload: answered once it has all arrived.
      req.resume()
      req.once('end', () => res.end('{}'))
    })
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
    h = await startHarness('sqlite', { providerTimeoutMs: PROVIDER_TIMEOUT_MS })
    conn = await connectFathomAt(h, providerUrl)
  })
  afterAll(async () => {
    for (const s of callers) s.destroy()
    await h?.close()
    provider?.closeAllConnections()
    await new Promise((resolve) => provider?.close(resolve))
  })

  /** A caller on a raw socket: sends `head` (and `body`), then neither reads nor writes. */
  const stalledCaller = async (head: string, body = '') => {
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    callers.push(socket)
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(`${head}host: x\r\nauthorization: Bearer ${h.apiKey}\r\n\r\n${body}`)
    socket.pause()
    return socket
  }

  /** Waits (at most `ms`) for the provider's side of the call to `path` to be closed unfinished. */
  const providerCut = async (path: string, ms = 15_000) => {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      if (calls.some((c) => c.path.endsWith(path) && c.cut)) return true
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return false
  }

  it('a caller that stops reading the answer (the passthrough door)', async () => {
    await stalledCaller(`GET /passthrough/${conn}/export HTTP/1.1\r\n`)
    expect(await providerCut('/export')).toBe(true)
  })

  it('a caller that stops sending its upload (the routes)', async () => {
    await stalledCaller(
      `POST /passthrough/${conn}/upload HTTP/1.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n`,
      '1\r\n{\r\n',
    )
    expect(await providerCut('/upload')).toBe(true)
  })

  it('an upload that keeps coming is relayed whole, however long it takes', async () => {
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    callers.push(socket)
    await new Promise((resolve) => socket.once('connect', resolve))
    const answer = new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (d: Buffer) => {
        text += d.toString()
        if (text.includes('\r\n\r\n')) resolve(text)
      })
    })
    socket.write(
      `POST /passthrough/${conn}/slow-upload HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${h.apiKey}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    )
    // Pauses shorter than the bound, for longer than the bound in all.
    for (const part of ['{', '"a"', ':', '1', '}']) {
      socket.write(`${part.length.toString(16)}\r\n${part}\r\n`)
      await new Promise((resolve) => setTimeout(resolve, PROVIDER_TIMEOUT_MS / 2))
    }
    socket.write('0\r\n\r\n')
    expect(await answer).toMatch(/^HTTP\/1.1 200/)
  })

  it('an answer given before the upload ended closes the socket after it, instead of leaving it hung', async () => {
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    callers.push(socket)
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    let text = ''
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
    })
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    const body = Buffer.alloc(2_000_000, 'x')
    // A second request follows on the same socket: before, it never got an answer, nor the socket an end.
    socket.write(
      `POST /passthrough/${conn}/refuse HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${h.apiKey}\r\n` +
        `content-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`,
    )
    socket.write(body)
    socket.write(`GET /unified/workspace HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${h.apiKey}\r\n\r\n`)
    await ended
    expect(text).toMatch(/^HTTP\/1.1 415/)
    expect(text.toLowerCase()).toContain('connection: close')
    expect(text).toContain('{"detail":"Unsupported media type"}')
  })
})

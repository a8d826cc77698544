import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'

const MAX_CONNECTIONS = 3

/**
 * The server holds at most UNIGATE_MAX_CONNECTIONS client connections. A probe opened 3,000 sockets without a
 * key, each sending half a request's headers and a header line every few seconds: all were held (Node's own
 * bound is 60 s for the headers, renewed by nothing), and enough of them take every file descriptor of the
 * process, after which no client is answered and no provider can be called.
 */
describe('client connections past UNIGATE_MAX_CONNECTIONS', () => {
  let h: Harness
  const sockets: Socket[] = []

  beforeAll(async () => {
    h = await startHarness('sqlite', { maxConnections: MAX_CONNECTIONS })
  })
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await h?.close()
  })

  /** A socket that sends half of a request's headers and then nothing, as a slow client does. */
  const slowClient = async () => {
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1')
    sockets.push(socket)
    socket.on('error', () => undefined)
    const closed = new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (d: Buffer) => {
        text += d.toString('utf8')
      })
      socket.once('close', () => resolve(text))
    })
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('GET /health HTTP/1.1\r\nhost: x\r\n')
    return { socket, closed }
  }

  /** `p`, or undefined when it has not settled within `ms` (the socket was held). */
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))])

  it('closes one more at once, and takes new ones again when one of them ends', async () => {
    const held = []
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await slowClient())
    const refused = await slowClient()
    // Closed by the server without an answer; the slow clients before it are still held.
    expect(await within(refused.closed, 5_000)).toBe('')
    expect(held.map((c) => c.socket.destroyed)).toEqual(held.map(() => false))
    // Said once in the log, with the bound (at most one warning a minute, however many are closed).
    const second = await slowClient()
    expect(await within(second.closed, 5_000)).toBe('')
    const warnings = h
      .logs()
      .split('\n')
      .filter((l) => l.includes('UNIGATE_MAX_CONNECTIONS client connections already'))
    expect(warnings).toHaveLength(1)
    expect(JSON.parse(warnings[0]!)).toMatchObject({ dropped: 1, maxConnections: MAX_CONNECTIONS })
    // A slow client that leaves frees its place: the next request is answered.
    for (const c of held) c.socket.destroy()
    await within(Promise.all(held.map((c) => c.closed)), 5_000)
    const health = await h.api('GET', '/health')
    expect(health.status).toBe(200)
  })
})

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import type { Harness } from './harness.js'

/** What a stand-in provider answers a request (its body read whole): a status and a JSON value or text. */
export type OwnAnswer = (req: IncomingMessage, body: string) => [number, unknown]

/**
 * A server standing in for a provider at an address a connection's creator controls (`auth.meta.api_url`),
 * answering each request as `answer` says, which a test may change between calls.
 */
export interface OwnProvider {
  answer: OwnAnswer
  readonly server: Server
  /** Its address once listening (start). */
  url(): string
  start(): Promise<void>
  close(): Promise<void>
}

export function ownProvider(answer: OwnAnswer = () => [404, {}]): OwnProvider {
  const provider: OwnProvider = {
    answer,
    server: createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        const [status, value] = provider.answer(req, body)
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(typeof value === 'string' ? value : JSON.stringify(value))
      })
    }),
    url: () => `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}`,
    start: () => new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve)),
    close: () => new Promise<void>((resolve) => provider.server.close(() => resolve())),
  }
  return provider
}

/** Creates a connection through the API with these credentials; answers its id (the creation must succeed). */
export async function connected(h: Harness, integration_type: string, auth: Record<string, unknown>) {
  const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
    body: { integration_type, auth },
  })
  expect(conn.status, conn.text).toBe(200)
  return conn.body.id
}

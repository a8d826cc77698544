import type { IncomingMessage } from 'node:http'
import { expect } from 'vitest'
import type { Harness } from './harness.js'
import { type LocalServer, startLocalServer } from './local-server.js'

/** What a stand-in provider answers a request (its body read whole): a status and a JSON value or text. */
export type OwnAnswer = (req: IncomingMessage, body: string) => [number, unknown]

/**
 * A stand-in provider at an address a connection's creator controls (`auth.meta.api_url`), on
 * startLocalServer, answering each request as `answer` says, which a test may change between calls.
 */
export interface OwnProvider {
  answer: OwnAnswer
  /** Its address once listening (start). */
  url(): string
  start(): Promise<void>
  close(): Promise<void>
}

export function ownProvider(answer: OwnAnswer = () => [404, {}]): OwnProvider {
  let server: LocalServer | undefined
  const provider: OwnProvider = {
    answer,
    url: () => {
      if (!server) throw new Error('the stand-in provider is not started')
      return server.url
    },
    start: async () => {
      server = await startLocalServer((req, res) => {
        let body = ''
        req.on('data', (c: Buffer) => {
          body += c.toString()
        })
        req.on('end', () => {
          const [status, value] = provider.answer(req, body)
          res.writeHead(status, { 'content-type': 'application/json' })
          res.end(typeof value === 'string' ? value : JSON.stringify(value))
        })
      })
    },
    close: async () => {
      await server?.close()
    },
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

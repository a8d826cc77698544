import type { IncomingMessage, ServerResponse } from 'node:http'
import { expect } from 'vitest'
import type { Harness } from './harness.js'

/**
 * For a local server standing in for Fathom (a connection's `api_url`): answers the call verification
 * makes (`GET /token`, Fathom's token introspection) as Fathom answers a valid token, and says whether it did.
 * The rest of the server's routes are the test's own.
 */
export function answeredFathomVerification(req: IncomingMessage, res: ServerResponse): boolean {
  if (!req.url?.endsWith('/token')) return false
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ name: 'x', abilities: ['*'] }))
  return true
}

/** A Fathom connection whose `api_url` is a stand-in answering as above: its id. */
export async function connectFathomAt(h: Harness, apiUrl: string): Promise<string> {
  const created = await h.api<{ id: string }>('POST', '/unified/connection', {
    body: { integration_type: 'fathom', auth: { api_key: 'a-valid-token-1', meta: { api_url: apiUrl } } },
  })
  expect(created.status, created.text).toBe(200)
  return created.body.id
}

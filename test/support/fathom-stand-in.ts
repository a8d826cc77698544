import type { IncomingMessage, ServerResponse } from 'node:http'

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

import { randomUUID } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Harness } from './harness.js'

export interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
}

export interface LocalServer {
  /** `http://127.0.0.1:{port}` */
  readonly url: string
  readonly port: number
  /** Every request that reached the server, in order. */
  readonly seen: SeenRequest[]
  close(): Promise<void>
}

/**
 * A plain HTTP server on 127.0.0.1 for outbound-policy tests: a stand-in provider whose answers a test
 * controls, or the "internal service" a request must never reach. Not an emulator of any provider.
 */
export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('internal secret'),
): Promise<LocalServer> {
  const seen: SeenRequest[] = []
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Stores a PostHog connection pointing at `apiUrl` directly, without the verification call: the way to get a
 * connection whose address the server must refuse to reach (as one saved before the policy, or by another
 * process with other settings, would be).
 */
export async function storeConnection(
  h: Harness,
  apiUrl: string,
  permissions: string[] = ['analytics_property_read', 'analytics_event_read', 'analytics_event_write'],
): Promise<string> {
  const id = `cn_na_${randomUUID().replace(/-/g, '')}`
  const now = new Date().toISOString()
  await h.services.connectionStore.insert({
    id,
    workspace_id: h.workspaceId,
    integration_type: 'posthog',
    categories: ['analytics'],
    permissions,
    environment: 'Production',
    created_at: now,
    updated_at: now,
    credentials: { token: 'phx_test', api_url: apiUrl },
    settings: { project_id: '1' },
  })
  return id
}

/** A request with the path sent byte for byte (fetch and undici would resolve `..` before sending). */
export function rawRequest(
  h: Harness,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(h.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, method, path, headers: { authorization: `Bearer ${h.apiKey}` } },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          body += c
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

export interface Recorder {
  readonly url: string
  readonly requests: RecordedRequest[]
  close(): Promise<void>
}

/**
 * An HTTP server that stands for someone else's host (an attacker's, an internal service): it records
 * every request and answers with `status` and `body`, or never answers when `status` is 'hang'.
 */
export async function startRecorder(
  answer: { status: number | 'hang'; body?: string } = { status: 401, body: '{"detail":"no"}' },
): Promise<Recorder> {
  const requests: RecordedRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      if (answer.status === 'hang') return
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

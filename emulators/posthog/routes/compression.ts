import { createGunzip } from 'node:zlib'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * Capture bodies may be gzipped, as PostHog's SDKs send them: posthog-js with `?compression=gzip-js`
 * (and a text/plain body), server SDKs with `Content-Encoding: gzip`. The bytes are inflated before
 * the body is parsed; a body that is not valid gzip fails like any unparsable body
 * (https://posthog.com/docs/api/capture).
 */
export function installCaptureDecompression(app: FastifyInstance, paths: readonly string[]): void {
  const isCapture = (request: FastifyRequest) => {
    const path = (request.raw.url ?? '').split('?')[0]!.replace(/\/+$/, '')
    return paths.includes(path)
  }
  app.addHook('preParsing', async (request, _reply, payload) => {
    const query = request.query as Record<string, unknown>
    const gzipped = query.compression === 'gzip-js' || request.headers['content-encoding'] === 'gzip'
    if (!gzipped || !isCapture(request)) return payload
    const inflated = payload.pipe(createGunzip())
    payload.on('error', (err) => inflated.destroy(err))
    // Fastify checks the length it received against content-length, which counts the gzipped bytes.
    let received = 0
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length
      ;(inflated as unknown as { receivedEncodedLength: number }).receivedEncodedLength = received
    })
    return inflated
  })
}

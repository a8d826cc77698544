import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { request as undiciRequest } from 'undici'
import { noteConnection, noteProviderTime } from '../../apicalls/index.js'
import { apiErrorFromProvider } from '../../engine/index.js'
import { badRequest, notFound, ProviderTimeoutError, ProviderUnreachableError } from '../../errors.js'
import { joinPath, providerAgent } from '../../integrations/http-client.js'
import type { Services } from '../../services.js'
import { requireWorkspaceKey } from '../auth.js'

/** Headers that describe one hop, not the message (RFC 9110 section 7.6.1), plus ours that must not leak. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
])
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'authorization', 'cookie', 'content-length'])

const PREFIX = /^\/passthrough\/([^/?]+)\/?([^?]*)(?:\?(.*))?$/

/**
 * The provider path arrives as one encoded segment (the SDK: `%2Fv1%2Fusers%3Fx%3D1`) or with literal
 * slashes (curl). A single segment is decoded, and may carry a query of its own.
 */
export function providerTarget(
  rawUrl: string,
): { connectionId: string; path: string; query: string } | undefined {
  const m = PREFIX.exec(rawUrl)
  if (!m) return undefined
  const connectionId = decodeURIComponent(m[1]!)
  const rawPath = m[2] ?? ''
  let path = rawPath
  let query = m[3] ?? ''
  if (!rawPath.includes('/')) {
    const decoded = decodeURIComponent(rawPath)
    const q = decoded.indexOf('?')
    path = q === -1 ? decoded : decoded.slice(0, q)
    if (q !== -1) query = [decoded.slice(q + 1), query].filter(Boolean).join('&')
    path = path
      .split('/')
      .map((seg) => encodeURI(seg).replace(/[?#]/g, encodeURIComponent))
      .join('/')
  }
  return { connectionId, path: path.replace(/^\/+/, ''), query }
}

/** Any method on `/passthrough/{connection_id}/{path}`: forwarded with the provider's auth, streamed both ways. */
export async function passthroughRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // Bodies are forwarded as the raw byte stream, whatever their type: no parsing, no buffering.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))

  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const target = providerTarget(request.raw.url ?? '')
    if (!target) throw badRequest('passthrough needs /passthrough/{connection_id}/{provider path}')
    const resolved = await services.resolver.resolve(request.workspaceId, target.connectionId)
    if (!resolved) throw notFound(`connection ${target.connectionId} not found`)
    noteConnection(request, resolved)
    const { integration, connection } = resolved
    const url =
      joinPath(integration.baseUrl(connection.credentials), target.path) +
      (target.query ? `?${target.query}` : '')
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(request.headers)) {
      if (v === undefined || NOT_FORWARDED.has(k)) continue
      headers[k] = Array.isArray(v) ? v.join(', ') : v
    }
    // From the client, so an OAuth token is refreshed first when it is about to expire.
    Object.assign(headers, await resolved.client.currentAuthHeaders())
    const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD'
    const started = performance.now()
    try {
      const res = await undiciRequest(url, {
        method: request.method as 'GET',
        headers,
        body: hasBody ? (request.body as Readable) : null,
        dispatcher: providerAgent,
        headersTimeout: services.config.providerTimeoutMs,
        bodyTimeout: services.config.providerTimeoutMs,
      })
      noteProviderTime(request, performance.now() - started)
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined && !HOP_BY_HOP.has(k)) void reply.header(k, v)
      }
      return reply.code(res.statusCode).send(res.body)
    } catch (err) {
      const code = (err as { code?: string }).code
      const mapped =
        code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
          ? new ProviderTimeoutError(services.config.providerTimeoutMs)
          : new ProviderUnreachableError(code ?? 'connection failed')
      throw apiErrorFromProvider(mapped, integration, `passthrough ${request.method} /${target.path}`)
    }
  }

  const auth = requireWorkspaceKey(services.apiKeys)
  const schema = {
    tags: ['passthrough'],
    security: [{ jwt: [] }],
    summary: 'Forward any request to the provider with the connection’s authentication',
  }
  for (const url of ['/passthrough/:connection_id', '/passthrough/:connection_id/*']) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      onRequest: auth,
      schema,
      handler,
    })
  }
}

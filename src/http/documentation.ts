import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of the server's routes, built the first time anyone asks (documentation.ts). */
    openApiDocument(): Promise<Record<string, unknown>>
  }
}

/** Headers of the inner answer that describe its own hop, not the relayed message. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

/**
 * `/openapi.json` and the `/docs` reference page, without loading @fastify/swagger and its UI at start-up
 * (about 150 files, a fifth of the start): the first request for either builds a second, never listening
 * instance of the same app with the swagger plugins registered before the same routes, so its document is
 * the one the server always served; `/docs` requests are answered by that instance (`inject`).
 */
export function serveDocumentationOnFirstUse(
  app: FastifyInstance,
  buildDocumentedApp: () => Promise<FastifyInstance>,
): void {
  let documented: Promise<FastifyInstance> | undefined
  const documentedApp = () => {
    documented ??= buildDocumentedApp().then(
      async (built) => {
        await built.ready()
        return built
      },
      (err: unknown) => {
        documented = undefined
        throw err
      },
    )
    return documented
  }
  let document: Record<string, unknown> | undefined
  app.decorate('openApiDocument', async () => {
    document ??= (await documentedApp()).swagger() as Record<string, unknown>
    return document
  })
  app.addHook('onClose', async () => {
    const built = await documented?.catch(() => undefined)
    await built?.close()
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.openApiDocument())
  const relay = async (request: FastifyRequest, reply: FastifyReply) => {
    const res = await (await documentedApp()).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    })
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) void reply.header(name, value)
    }
    return reply
      .code(res.statusCode)
      .headers(framingRefused(res.headers['content-security-policy']))
      .send(res.rawPayload)
  }
  app.get('/docs', { schema: { hide: true } }, relay)
  app.get('/docs/*', { schema: { hide: true } }, relay)
}

/**
 * The reference page's headers that keep other sites from framing it (clickjacking) and browsers from sniffing
 * its answers into another type, as Unigate's own hosted pages are sent; added to the UI's own policy, if any.
 */
function framingRefused(policy: string | string[] | number | undefined): Record<string, string> {
  const own = typeof policy === 'string' && policy.trim() !== '' ? policy.trim().replace(/;$/, '') : undefined
  const framing =
    own && /frame-ancestors/i.test(own) ? own : [own, "frame-ancestors 'none'"].filter(Boolean).join('; ')
  return {
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'content-security-policy': framing,
  }
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify'
import { installInboundCallLog } from '../apicalls/index.js'
import { authorizationRoutes } from '../authorization/index.js'
import { toolServerRoutes } from '../mcp/index.js'
import type { Services } from '../services.js'
import { webhookRoutes } from '../webhooks/index.js'
import { parseJsonBodiesWithDepthLimit } from './body-depth.js'
import { serveDocumentationOnFirstUse } from './documentation.js'
import { frameworkErrorAnswer, installErrorHandling } from './errors.js'
import { loggerOptions } from './logging.js'
import { type Door, passthroughDoor } from './passthrough-door.js'
import { connectionRoutes } from './routes/connections.js'
import { integrationRoutes } from './routes/integrations.js'
import { passthroughRoutes } from './routes/passthrough.js'
import { unifiedObjectRoutes } from './routes/unified-objects.js'
import { workspaceRoutes } from './routes/workspace.js'
import { buildSerializerOnFirstUse } from './serialization.js'
import { boundUpload } from './upload-deadline.js'
import { buildValidatorPerPart } from './validation.js'

export interface AppOptions {
  /** false silences request logs (tests); otherwise pino JSON at the configured level. */
  readonly logger?: boolean
  /** Where JSON log lines go (stdout by default); tests read them to prove no secret is logged. */
  readonly logStream?: NodeJS.WritableStream
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  return assembleApp(services, options, 'on-first-use')
}

/**
 * The app, with its documentation served `on-first-use` (the server), or with the swagger plugins registered
 * before every route (`documented`: the instance that builds the OpenAPI document and the /docs page).
 */
async function assembleApp(
  services: Services,
  options: AppOptions,
  documentation: 'on-first-use' | 'documented',
): Promise<FastifyInstance> {
  let door: Door = () => false
  const nextRequestId = requestIdSequence()
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(services.config.logLevel, options.logStream),
    bodyLimit: services.config.bodyLimitBytes,
    // Keep ids such as `a%2Fb` intact as one path parameter (sdk-contract R12).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: () => nextRequestId(),
    frameworkErrors: (err, request, reply) => {
      const answer = frameworkErrorAnswer(err, MAX_PARAM_LENGTH)
      if (answer.status >= 500) request.log.error({ err }, 'router error')
      void (reply as FastifyReply).code(answer.status).send(answer.body)
    },
    // The HTTP server Fastify would make, with the passthrough door in front of Fastify's own handler.
    serverFactory: (handler, settings) =>
      httpServer(
        (req, res) => {
          // On every answer, whoever writes it (Fastify's routes, the passthrough door, a relayed provider
          // answer): a browser must not read an error that repeats the caller's own input, or a provider's
          // body, as another type than the one sent (HTML, say). Set here, the one place all of them pass.
          res.setHeader('x-content-type-options', 'nosniff')
          boundUpload(req, res, services.config.bodyTimeoutMs)
          if (!door(req, res)) handler(req, res)
        },
        settings,
        services.config.maxConnections,
      ),
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidatorPerPart(),
        buildSerializer: buildSerializerOnFirstUse(),
      },
    },
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
        // Errors carry the schema that failed (`parentSchema`): messages state its range from it.
        verbose: true,
        // Annotation only (which integrations need a list parameter), for readers of the OpenAPI document.
        keywords: ['x-required-by'],
      },
    },
  })
  installErrorHandling(app)
  warnOfDroppedConnections(app, services.config.maxConnections)
  parseJsonBodiesWithDepthLimit(app)
  // The API reads JSON only: Fastify's own text/plain parser handed routes a string that validation then
  // refused as "not an object"; without it such a body is a 415 naming what to send (the tool-call routes
  // read text/plain as JSON in their own scope).
  app.removeContentTypeParser('text/plain')
  if (documentation === 'documented') {
    const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
      import('@fastify/swagger'),
      import('@fastify/swagger-ui'),
    ])
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Unigate API',
          version: '1.0',
          description:
            'A self-hostable server speaking the Unified.to API: analytics, connections, passthrough.',
        },
        servers: [{ url: services.config.publicUrl }],
        components: { securitySchemes: { jwt: { type: 'apiKey', in: 'header', name: 'authorization' } } },
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    })
    await app.register(swaggerUi, { routePrefix: '/docs' })
  } else {
    serveDocumentationOnFirstUse(app, () => assembleApp(services, { logger: false }, 'documented'))
  }
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  // Before the routes: it attaches its hooks to the logged routes as they register.
  if (services.config.logInboundCalls) installInboundCallLog(app, services.apiCalls)
  await app.register(async (scope) => unifiedObjectRoutes(scope, services))
  await app.register(async (scope) => connectionRoutes(scope, services))
  await app.register(async (scope) => integrationRoutes(scope, services))
  await app.register(async (scope) => workspaceRoutes(scope, services))
  await app.register(async (scope) => passthroughRoutes(scope, services))
  if (documentation === 'on-first-use') {
    let closing = false
    app.addHook('preClose', (done) => {
      closing = true
      done()
    })
    door = passthroughDoor(services, {
      log: () => app.log,
      nextRequestId,
      maxParamLength: MAX_PARAM_LENGTH,
      closing: () => closing,
    })
  }
  await app.register(async (scope) => authorizationRoutes(scope, services))
  await app.register(async (scope) => webhookRoutes(scope, services))
  await app.register(async (scope) => toolServerRoutes(scope, services))
  return app
}

const MAX_PARAM_LENGTH = 500

/** Fastify's own request ids (`req-1`, `req-2`…), from one sequence that the passthrough door shares. */
function requestIdSequence(): () => string {
  let next = 0
  return () => {
    // Kept a small integer, as Fastify's own generator does (lib/req-id-gen-factory.js).
    next = (next + 1) & 0x7fffffff
    return `req-${next.toString(36)}`
  }
}

/**
 * An HTTP/1 server set up as Fastify sets up its own (lib/server.js getServerInstance), holding at most
 * `maxConnections` client sockets: Node closes one more as soon as it opens (its `drop` event).
 */
function httpServer(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  settings: FastifyServerOptions,
  maxConnections: number,
) {
  const server = createServer(listener)
  server.maxConnections = maxConnections
  if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout
  if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout
  server.setTimeout(settings.connectionTimeout ?? 0)
  if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket
  return server
}

/** How often, at most, the log says connections were dropped: a flood of them must not flood the log. */
const DROP_WARNING_EVERY_MS = 60_000

/**
 * Warns when connections past UNIGATE_MAX_CONNECTIONS were closed: at the first, then at most once every
 * DROP_WARNING_EVERY_MS with how many were closed since the last warning.
 */
function warnOfDroppedConnections(app: FastifyInstance, maxConnections: number): void {
  let dropped = 0
  let warnedAt = Number.NEGATIVE_INFINITY
  app.server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now - warnedAt < DROP_WARNING_EVERY_MS) return
    app.log.warn(
      { dropped, maxConnections },
      'closed new connections: the server holds UNIGATE_MAX_CONNECTIONS client connections already',
    )
    warnedAt = now
    dropped = 0
  })
}

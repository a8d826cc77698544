import Fastify, { type FastifyInstance } from 'fastify'
import { installInboundCallLog } from '../apicalls/index.js'
import { authorizationRoutes } from '../authorization/index.js'
import { toolServerRoutes } from '../mcp/index.js'
import type { Services } from '../services.js'
import { webhookRoutes } from '../webhooks/index.js'
import { parseJsonBodiesWithDepthLimit } from './body-depth.js'
import { serveDocumentationOnFirstUse } from './documentation.js'
import { installErrorHandling } from './errors.js'
import { loggerOptions } from './logging.js'
import { connectionRoutes } from './routes/connections.js'
import { integrationRoutes } from './routes/integrations.js'
import { passthroughRoutes } from './routes/passthrough.js'
import { unifiedObjectRoutes } from './routes/unified-objects.js'
import { workspaceRoutes } from './routes/workspace.js'
import { buildSerializerOnFirstUse } from './serialization.js'
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
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(services.config.logLevel, options.logStream),
    bodyLimit: services.config.bodyLimitBytes,
    // Keep ids such as `a%2Fb` intact as one path parameter (sdk-contract R12).
    routerOptions: { maxParamLength: 500 },
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
        // Annotation only (which integrations need a list parameter), for readers of the OpenAPI document.
        keywords: ['x-required-by'],
      },
    },
  })
  installErrorHandling(app)
  parseJsonBodiesWithDepthLimit(app)
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
  await app.register(async (scope) => authorizationRoutes(scope, services))
  await app.register(async (scope) => webhookRoutes(scope, services))
  await app.register(async (scope) => toolServerRoutes(scope, services))
  return app
}

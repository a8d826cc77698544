import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance } from 'fastify'
import { installInboundCallLog } from '../apicalls/index.js'
import { authorizationRoutes } from '../authorization/index.js'
import { toolServerRoutes } from '../mcp/index.js'
import type { Services } from '../services.js'
import { webhookRoutes } from '../webhooks/index.js'
import { installErrorHandling } from './errors.js'
import { loggerOptions } from './logging.js'
import { connectionRoutes } from './routes/connections.js'
import { integrationRoutes } from './routes/integrations.js'
import { passthroughRoutes } from './routes/passthrough.js'
import { unifiedObjectRoutes } from './routes/unified-objects.js'
import { workspaceRoutes } from './routes/workspace.js'
import { buildValidatorPerPart } from './validation.js'

export interface AppOptions {
  /** false silences request logs (tests); otherwise pino JSON at the configured level. */
  readonly logger?: boolean
  /** Where JSON log lines go (stdout by default); tests read them to prove no secret is logged. */
  readonly logStream?: NodeJS.WritableStream
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(services.config.logLevel, options.logStream),
    bodyLimit: services.config.bodyLimitBytes,
    // Keep ids such as `a%2Fb` intact as one path parameter (sdk-contract R12).
    routerOptions: { maxParamLength: 500 },
    schemaController: { compilersFactory: { buildValidator: buildValidatorPerPart() } },
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
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
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

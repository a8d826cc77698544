import type { FastifyInstance, FastifyRequest } from 'fastify'
import { notFound } from '../errors.js'
import type { Services } from '../services.js'
import { connectionTools, withheldConnectionTools } from './connection-tools.js'
import { externalTools } from './external-tools.js'
import type { CallerInfo } from './invoke.js'
import type { ToolServerOptions } from './options.js'
import { checkRegion } from './regions.js'
import { isDeferred, selectTools } from './selection.js'
import type { Tool, WithheldTool } from './tool.js'
import type { ListedTool } from './vendor-formats.js'
import { type OpenApiDocument, workspaceTools } from './workspace-tools.js'

/** The tools one request may see and call, in connection mode or workspace mode. */
export interface ToolSession {
  readonly mode: 'connection' | 'workspace'
  readonly tools: readonly Tool[]
  /** Tools of the connection its grant does not cover: calling one is a 403, not an unknown tool. */
  readonly withheld: readonly WithheldTool[]
  readonly options: ToolServerOptions
  readonly caller: CallerInfo
}

export interface SessionRequest {
  readonly request: FastifyRequest
  readonly apiKey: string
  readonly options: ToolServerOptions
  /** The path the client called, to name the right address when the connection is in another region. */
  readonly path: string
}

export async function openToolSession(
  app: FastifyInstance,
  services: Services,
  { request, apiKey, options, path }: SessionRequest,
): Promise<ToolSession> {
  const workspaceId = request.workspaceId
  const client = {
    ...(request.ip ? { ipAddress: request.ip } : {}),
    ...(request.headers['user-agent'] ? { userAgent: request.headers['user-agent'] } : {}),
  }
  if (!options.connection) {
    const doc = (await app.openApiDocument()) as unknown as OpenApiDocument
    const tools = workspaceTools({ app, services, apiKey, workspaceId }, doc)
    return {
      mode: 'workspace',
      tools: selectTools(tools, options),
      withheld: [],
      options,
      caller: { workspaceId, integrationType: 'unified', ...client },
    }
  }
  const id = options.connection
  checkRegion(services.config, id, path)
  const resolved = await services.resolver.resolve(workspaceId, id)
  if (!resolved) throw notFound(`connection ${id} not found`)
  const workspace = await services.workspaceSettings.get(workspaceId)
  const external = options.includeExternalTools ? externalTools(resolved) : { offered: [], withheld: [] }
  const tools = [
    ...connectionTools(resolved, {
      resolver: services.resolver,
      slowFieldsOptIn: workspace?.slow_fields_opt_in ?? false,
    }),
    ...external.offered,
  ]
  const c = resolved.connection
  const withheld = [...withheldConnectionTools(resolved), ...external.withheld]
  return {
    mode: 'connection',
    tools: selectTools(tools, options, withheld),
    withheld,
    options,
    caller: {
      workspaceId,
      connectionId: c.id,
      integrationType: c.integration_type,
      ...(c.external_xref ? { externalXref: c.external_xref } : {}),
      environment: c.environment,
      ...client,
    },
  }
}

export function listedTools(session: ToolSession): ListedTool[] {
  return session.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    deferred: isDeferred(t.name, session.options.deferTools),
  }))
}

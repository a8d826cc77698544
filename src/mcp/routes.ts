import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiCallRoutes } from '../apicalls/index.js'
import { ApiError, badRequest, notFound } from '../errors.js'
import { parseJsonBodiesWithDepthLimit, parsePlainTextBodiesAsJson } from '../http/body-depth.js'
import { errorBody, validationMessage } from '../http/errors.js'
import type { Services } from '../services.js'
import { authenticateToolCaller } from './auth.js'
import { invokeTool } from './invoke.js'
import { parseToolServerOptions, type RawQuery, ToolServerQuery } from './options.js'
import { jsonRpcRefusal } from './params.js'
import { listedTools, openToolSession } from './session.js'
import { withheldMessage } from './tool.js'
import { formatTools, parseToolFormat } from './vendor-formats.js'

const TAGS = ['tool server']

/** The route options checking the URL parameters against `querystring`, with the API's messages. */
const queryChecked = (querystring: typeof ToolServerQuery) => ({
  schemaErrorFormatter: (errors: Parameters<typeof validationMessage>[0], context: string) =>
    new Error(validationMessage(errors, context, Object.keys(querystring.properties))),
})

/**
 * The MCP SDK (and zod under it) is loaded on the first `/mcp` call, not at start-up: it was a fifth of
 * the server's start-up time, for a route many deployments never serve.
 */
async function mcpModules() {
  const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('./mcp-server.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ])
  return { createMcpServer, StreamableHTTPServerTransport }
}

/** The tool server: MCP over Streamable HTTP at `/mcp`, and the plain HTTP `/tools` API beside it. */
async function toolRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // A tool call without arguments may come with an empty JSON body: that is `{}`, not an error. Otherwise
  // bodies are parsed as on the API: the same refused keys, the same depth limit.
  parseJsonBodiesWithDepthLimit(app, { emptyIsNone: true })

  // The caller's key is checked before its body is read: an unauthenticated call is refused without the
  // server parsing (up to the body limit) what it sent.
  const callerKeys = new WeakMap<FastifyRequest, string>()
  const authenticated = { onRequest: authenticateFirst }
  async function authenticateFirst(request: FastifyRequest) {
    callerKeys.set(request, await authenticateToolCaller(request, services.apiKeys))
  }
  const session = async (request: FastifyRequest, path: string) => {
    const apiKey = callerKeys.get(request)
    if (apiKey === undefined) throw new Error('a tool route without its onRequest authentication')
    const options = parseToolServerOptions(request.query as RawQuery)
    return openToolSession(app, services, { request, apiKey, options, path })
  }
  const onUnexpected = (request: FastifyRequest) => (err: unknown) =>
    request.log.error({ err }, 'tool call failed unexpectedly')

  app.post(
    '/mcp',
    {
      ...authenticated,
      ...queryChecked(ToolServerQuery),
      schema: { tags: TAGS, summary: 'MCP (Streamable HTTP, stateless)', querystring: ToolServerQuery },
    },
    async (request, reply) => {
      const refusal = jsonRpcRefusal(request.body)
      if (refusal) {
        // As the SDK answers: a malformed message 400, a request's own failure 200 with its error.
        const { id, ...error } = refusal
        return reply.code(error.code === -32600 ? 400 : 200).send({ jsonrpc: '2.0', error, id })
      }
      const s = await session(request, '/mcp')
      const { createMcpServer, StreamableHTTPServerTransport } = await mcpModules()
      const server = createMcpServer(s, services.apiCalls, onUnexpected(request))
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      })
      reply.raw.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      reply.hijack()
      try {
        await transport.handleRequest(request.raw, reply.raw, request.body)
      } catch (err) {
        // The reply is the transport's now; answer with a JSON-RPC error if nothing was sent yet.
        request.log.error({ err }, 'MCP request failed')
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' })
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }),
          )
        }
      }
    },
  )

  // Stateless: there is no server-to-client stream to open and no session to end.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST to /mcp' },
        id: null,
      })
  // Answered before a body is read (Fastify parses a DELETE's): the 405 needs nothing from the caller.
  const refusedFirst = {
    schema: { hide: true },
    onRequest: (request: FastifyRequest, reply: FastifyReply, _done: () => void) => {
      void notAllowed(request, reply)
    },
  }
  app.get('/mcp', refusedFirst, notAllowed)
  app.delete('/mcp', refusedFirst, notAllowed)

  app.get(
    '/tools',
    {
      ...authenticated,
      ...queryChecked(ToolServerQuery),
      schema: {
        tags: TAGS,
        summary: 'List tools; type selects an LLM vendor’s tool format',
        querystring: ToolServerQuery,
      },
    },
    async (request) => {
      const format = parseToolFormat((request.query as { type?: unknown }).type)
      const s = await session(request, '/tools')
      return formatTools(listedTools(s), format)
    },
  )

  const call = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as { id: string }
    const s = await session(request, request.url.split('?')[0] ?? '/tools')
    const tool = s.tools.find((t) => t.name === id)
    const withheld = s.withheld.find((t) => t.name === id)
    if (!tool && withheld) throw new ApiError(403, withheldMessage(withheld))
    if (!tool)
      throw notFound(
        `tool ${id} not found here; GET /tools lists the tools this connection and these parameters allow`,
      )
    const args = request.body ?? {}
    if (typeof args !== 'object' || Array.isArray(args))
      throw badRequest('the body must be a JSON object of arguments')
    const outcome = await invokeTool(
      tool,
      args as Record<string, unknown>,
      s.options.hideSensitive,
      s.caller,
      services.apiCalls,
      onUnexpected(request),
    )
    if (!outcome.ok)
      return reply.code(outcome.status).send(errorBody(outcome.status, outcome.message, outcome.extra))
    if (outcome.value === undefined) return reply.code(200).send()
    // Written to JSON once already (invokeTool, for its size and its depth check): not a second time here.
    return reply.code(200).type('application/json; charset=utf-8').send(outcome.text)
  }
  const callSchema = {
    ...authenticated,
    ...queryChecked(ToolServerQuery),
    schema: {
      tags: TAGS,
      summary: 'Call one tool with a JSON body of arguments',
      querystring: ToolServerQuery,
    },
  }
  // The call routes alone also read a text/plain body as JSON, as Unified's example client posts a call's
  // arguments; /mcp answers any other type than JSON 415, as the MCP transport does.
  await app.register(async (calls) => {
    parsePlainTextBodiesAsJson(calls, { emptyIsNone: true })
    calls.post('/tools/:id/call', callSchema, call)
    calls.post('/mcp/tools/:id/call', callSchema, call)
  })
}

/** Registers the tool server and the API-call log it writes to. */
export async function toolServerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(async (scope) => apiCallRoutes(scope, services))
  await app.register(async (scope) => toolRoutes(scope, services))
}

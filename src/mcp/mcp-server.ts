import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { ApiCallLog } from '../apicalls/index.js'
import { invokeTool, type ToolOutcome } from './invoke.js'
import { BATCH_CONCURRENCY, pacer } from './pacing.js'
import { toCallToolResult } from './results.js'
import type { ToolSession } from './session.js'
import { withheldMessage } from './tool.js'

const INSTRUCTIONS = {
  connection:
    'Tools for one connection: each reads or writes the provider’s data live through the unified model. ' +
    'List tools return JSON arrays; page with limit/offset and ask only for the fields you need.',
  workspace:
    'Workspace tools: manage connections, see integrations and what each supports, and read the log of ' +
    'API calls your agents made. For a connection’s data, connect with ?connection=<id> ' +
    '(get_unified_connection_mcp_url gives the URL).',
}

/**
 * One MCP server per HTTP request (stateless Streamable HTTP): the tool list depends on the URL
 * parameters and the connection, so nothing is kept between requests.
 */
export function createMcpServer(
  session: ToolSession,
  apiCalls: ApiCallLog,
  onUnexpected: (err: unknown) => void,
): Server {
  const server = new Server(
    { name: 'unigate', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS[session.mode] },
  )
  // The entries of a batch take turns with the rest of the process (pacing.ts); one request is one entry.
  const paced = pacer(BATCH_CONCURRENCY)
  server.setRequestHandler(ListToolsRequestSchema, () => paced(async () => listTools(session)))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    paced(async () => {
      // A client gone (or that cancelled this entry) while it waited its turn: no work, nothing answered.
      extra.signal.throwIfAborted()
      const header = extra.requestInfo?.headers['mcp-protocol-version']
      const protocolVersion = Array.isArray(header) ? header[0] : header
      return toCallToolResult(
        await callTool(session, request.params, apiCalls, onUnexpected),
        protocolVersion,
      )
    }),
  )
  return server
}

function listTools(session: ToolSession) {
  return {
    tools: session.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { title: t.title, ...t.annotations },
    })),
  }
}

async function callTool(
  session: ToolSession,
  params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
  apiCalls: ApiCallLog,
  onUnexpected: (err: unknown) => void,
): Promise<ToolOutcome> {
  const tool = session.tools.find((t) => t.name === params.name)
  const withheld = session.withheld.find((t) => t.name === params.name)
  if (!tool && withheld) return { ok: false, status: 403, message: withheldMessage(withheld), extra: {} }
  if (!tool) {
    return {
      ok: false,
      status: 404,
      message: `unknown tool '${params.name}'; call tools/list for the tools this server offers here`,
      extra: {},
    }
  }
  return invokeTool(
    tool,
    params.arguments ?? {},
    session.options.hideSensitive,
    session.caller,
    apiCalls,
    onUnexpected,
  )
}

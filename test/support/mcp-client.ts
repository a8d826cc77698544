import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect } from 'vitest'
import { type Harness, startHarness } from './harness.js'
import { createConnection } from './integration-suite.js'

export interface McpConnectOptions {
  /** URL parameters of the tool server (connection, tools, permissions, token…). */
  readonly params?: Record<string, string>
  /** Sent as `authorization: Bearer <key>`; omit to authenticate with the `token` parameter only. */
  readonly apiKey?: string
  /**
   * Make the client an older one: its initialize request asks for this protocol version, the server
   * agrees, and the client then sends it in the MCP-Protocol-Version header of every request.
   */
  readonly protocolVersion?: string
}

/** The official MCP client over Streamable HTTP, connected (initialized) to the server's /mcp. */
export async function connectMcp(baseUrl: string, options: McpConnectOptions = {}): Promise<Client> {
  const url = new URL(`${baseUrl}/mcp`)
  for (const [k, v] of Object.entries(options.params ?? {})) url.searchParams.set(k, v)
  const olderClientFetch: typeof fetch = async (input, init) => {
    if (options.protocolVersion && typeof init?.body === 'string' && init.body.includes('"initialize"')) {
      const message = JSON.parse(init.body) as { params: { protocolVersion: string } }
      message.params.protocolVersion = options.protocolVersion
      return fetch(input, { ...init, body: JSON.stringify(message) })
    }
    return fetch(input, init)
  }
  const transport = new StreamableHTTPClientTransport(url, {
    ...(options.apiKey ? { requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } } } : {}),
    fetch: olderClientFetch,
  })
  const client = new Client({ name: 'unigate-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>

/** The text of a tool result's first content item (the JSON or message the tool answered). */
export const toolText = (result: ToolResult): string => (result.content as { text: string }[])[0]!.text

export interface McpConnectionSuite<E> {
  readonly h: Harness
  readonly emulator: E
  readonly connectionId: string
  /** A tool-server client on the connection (the harness workspace's key). */
  readonly client: Client
}

/**
 * Runs a suite on one connection's tool server: before it, the provider's emulator, a harness on SQLite, a
 * connection to the emulator and an MCP client on it (handed to `ready`); after it, closes all of them.
 */
export function useMcpConnectionSuite<E extends { close(): Promise<void> }>(options: {
  readonly start: () => Promise<E>
  readonly connection: (emulator: E) => { integration_type: string; auth: unknown }
  readonly ready: (suite: McpConnectionSuite<E>) => void
}): void {
  let h: Harness | undefined
  let emulator: E | undefined
  let client: Client | undefined
  beforeAll(async () => {
    emulator = await options.start()
    h = await startHarness('sqlite')
    const connectionId = await createConnection(h, options.connection(emulator))
    client = await connectMcp(h.url, { apiKey: h.apiKey, params: { connection: connectionId } })
    options.ready({ h, emulator, connectionId, client })
  })
  afterAll(async () => {
    await client?.close()
    await h?.close()
    await emulator?.close()
  })
}

/**
 * A list tool answers what the API's list answers for the same fields and limit (the tool takes `fields` as
 * an array, the API as a comma-separated list), and the get tool reads the first record listed.
 */
export async function expectToolsAnswerAsApi(
  client: Client,
  h: Harness,
  tools: { readonly list: string; readonly get: string },
  path: string,
  args: { readonly fields: readonly string[]; readonly limit?: number },
): Promise<void> {
  const viaTool = await client.callTool({ name: tools.list, arguments: { ...args } })
  const viaApi = await h.api('GET', path, {
    query: { fields: args.fields.join(','), ...(args.limit === undefined ? {} : { limit: args.limit }) },
  })
  expect(JSON.parse(toolText(viaTool))).toEqual(viaApi.body)
  const first = (viaApi.body as { id: string }[])[0]!
  const one = await client.callTool({ name: tools.get, arguments: { id: first.id } })
  expect(one.structuredContent).toMatchObject({ id: first.id })
}

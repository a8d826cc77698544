import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

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

/**
 * The parameters of the JSON-RPC requests whose handlers read them, checked before the MCP SDK sees them.
 * The SDK validates them with zod inside its request handler and answers a failure as -32603 "Internal
 * error" carrying zod's whole issue list; JSON-RPC 2.0 (section 5.1) names -32602 "Invalid params" for it
 * and -32600 "Invalid Request" for an empty batch. Written by hand because it is the SDK's answer we
 * correct, for the two requests a caller shapes (`initialize`, `tools/call`).
 */
export interface JsonRpcRefusal {
  readonly code: -32600 | -32602
  readonly message: string
  readonly id: string | number | null
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

function idOf(message: Record<string, unknown>): string | number | null {
  const id = message.id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

function refusalOf(message: unknown): JsonRpcRefusal | undefined {
  if (!isObject(message)) return undefined
  const id = idOf(message)
  const params = message.params
  const invalid = (detail: string): JsonRpcRefusal => ({
    code: -32602,
    message: `Invalid params: ${detail}`,
    id,
  })
  switch (message.method) {
    case 'initialize':
      if (!isObject(params)) return invalid('initialize needs params, an object with protocolVersion')
      if (typeof params.protocolVersion !== 'string')
        return invalid('params.protocolVersion must be a string (such as "2025-06-18")')
      if (!isObject(params.capabilities)) return invalid('params.capabilities must be an object')
      if (
        !isObject(params.clientInfo) ||
        typeof params.clientInfo.name !== 'string' ||
        typeof params.clientInfo.version !== 'string'
      )
        return invalid('params.clientInfo must be an object with a name and a version, both strings')
      return undefined
    case 'tools/call':
      if (!isObject(params)) return invalid('tools/call needs params, an object with name and arguments')
      if (typeof params.name !== 'string') return invalid("params.name must be a string, the tool's name")
      if (params.arguments !== undefined && !isObject(params.arguments))
        return invalid('params.arguments must be an object of the tool’s arguments')
      return undefined
    default:
      return undefined
  }
}

/** The first refusal among the body's messages (one request or a batch), or undefined. */
export function jsonRpcRefusal(body: unknown): JsonRpcRefusal | undefined {
  if (Array.isArray(body)) {
    if (body.length === 0) return { code: -32600, message: 'Invalid Request: an empty batch', id: null }
    for (const message of body) {
      const refusal = refusalOf(message)
      if (refusal) return refusal
    }
    return undefined
  }
  return refusalOf(body)
}
